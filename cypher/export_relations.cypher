// graphmem export: every relation leaving the given memories for another
// memory of the same project, with all its properties (a relation that
// crosses the tenant boundary is never exported, nor one that ends at a memory
// the viewer may not read).
UNWIND $ids AS from_id
MATCH (a:Memory {id: from_id})-[r]->(b:Memory)
WHERE a.project_id = $project_id AND b.project_id = $project_id
  AND {{visible(a)}}
  AND {{visible(b)}}
RETURN type(r) AS type, a.id AS from_id, b.id AS to_id, properties(r) AS props
ORDER BY from_id, type, to_id
