// Which of $ids name a memory the acting agent may read ({{visible(m)}}), in
// any project: the memories other records name (supersededBy, mergedInto,
// conflictsWith, copiedFrom, an archive reason, an event's other end) are
// named to a reader only when it may read them (graphmem.services.memories).
// One match over the list, not one per id (see get_memories.cypher).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND {{visible(m)}}
RETURN m.id AS id
