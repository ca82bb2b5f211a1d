// Which of $ids name a memory the acting agent may read ({{visible(m)}}), in
// any project: the memories other records name (supersededBy, mergedInto,
// conflictsWith, copiedFrom, an archive reason, an event's other end) are
// named to a reader only when it may read them (graphmem.services.memories).
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE {{visible(m)}}
RETURN m.id AS id
