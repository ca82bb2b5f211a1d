// A memory and every memory within $depth relations of it (types as asked,
// either direction, inside the project), at most $max_nodes of them.
MATCH (c:Memory {id: $id})
WHERE c.project_id = $project_id
  AND {{visible(c)}}
OPTIONAL MATCH p = (c)-[:{{relation_types}}*1..3]-(o:Memory)
WHERE length(p) <= $depth
  AND o.id <> c.id
  AND all(r IN relationships(p) WHERE type(r) IN $relation_types)
  AND all(n IN nodes(p) WHERE n.project_id = $project_id)
  AND all(n IN nodes(p) WHERE {{visible(n)}})
WITH c, collect(DISTINCT o) AS reached
RETURN {{memory_projection(c)}} AS center,
       [o IN reached[..$max_nodes] | {{memory_projection(o)}}] AS nodes,
       size(reached) AS reachable
