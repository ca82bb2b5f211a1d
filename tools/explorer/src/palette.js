// Tier colours match cypher/browser/graphmem.grass, so the explorer and
// Neo4j Browser show the same graph the same way.

export const TIER_COLOURS = {
  WORKING: "#F79767",
  EPISODIC: "#57C7E3",
  SEMANTIC: "#4C8EDA",
  PROCEDURAL: "#8DCC93",
  ARCHIVED: "#D9D9D9",
};

export const RELATION_COLOURS = {
  CONSTRAINS: "#C0392B",
  ENABLES: "#2E8B57",
  SUPERSEDES: "#7D5BA6",
  RELATED_TO: "#7F8C8D",
};
