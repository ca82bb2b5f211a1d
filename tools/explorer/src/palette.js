// Colours the graph is drawn in. A relation type's colour is read from
// cypher/browser/graphmem.grass, the Neo4j Browser style, when the page is
// built: the explorer and Browser draw the same relation in the same colour,
// and a change to the style changes both. Tiers have no Browser counterpart
// (Browser styles by label, and every memory is a :Memory).

import grass from "../../../cypher/browser/graphmem.grass";

/** Each rule's declarations, by selector (`relationship.SUPERSEDES`). */
function parseGrass(text) {
  const rules = {};
  for (const [, selector, body] of text.matchAll(/([\w.]+)\s*\{((?:[^}']|'[^']*')*)\}/g)) {
    rules[selector] = Object.fromEntries(
      body
        .split(";")
        .map((declaration) => declaration.split(":").map((part) => part.trim()))
        .filter((pair) => pair.length === 2 && pair[0]),
    );
  }
  return rules;
}

const BROWSER = parseGrass(grass);

function browserColour(type) {
  const colour = BROWSER[`relationship.${type}`]?.color;
  if (!colour) throw new Error(`graphmem.grass has no colour for ${type}`);
  return colour;
}

export const TIER_COLOURS = {
  WORKING: "#F79767",
  EPISODIC: "#57C7E3",
  SEMANTIC: "#4C8EDA",
  PROCEDURAL: "#8DCC93",
  ARCHIVED: "#D9D9D9",
};

export const RELATION_COLOURS = {
  CONSTRAINS: browserColour("CONSTRAINS"),
  ENABLES: browserColour("ENABLES"),
  SUPERSEDES: browserColour("SUPERSEDES"),
  RELATED_TO: browserColour("RELATED_TO"),
};
