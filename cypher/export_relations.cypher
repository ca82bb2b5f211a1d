// graphmem export: every relation leaving the given memories for another
// memory of the same project, with all its properties (a relation that
// crosses the tenant boundary is never exported, nor one that ends at a memory
// the viewer may not read). One match over the list, not one per id (see
// get_memories.cypher), then walked from each memory.
MATCH (a:Memory)
WHERE a.id IN $ids
  AND a.project_id = $project_id
  AND {{visible(a)}}
MATCH (a)-[r]->(b:Memory)
WITH a, r, b
WHERE b.project_id = $project_id
  AND {{visible(b)}}
RETURN type(r) AS type, a.id AS from_id, b.id AS to_id, properties(r) AS props
ORDER BY from_id, type, to_id
