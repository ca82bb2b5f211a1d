// The relations touching each of $ids, one row per memory of $ids it touches
// (an edge between two of them comes once for each). One match over the list,
// not one per id (see get_memories.cypher), then walked from each memory.
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
MATCH (m)-[r]-(o:Memory)
WITH m, r, o
WHERE o.project_id = $project_id
  AND {{visible(o)}}
RETURN m.id AS memory_id, type(r) AS type, startNode(r).id AS from_id, endNode(r).id AS to_id,
       r.rationale AS rationale, r.weight AS weight, r.created_at AS created_at
ORDER BY created_at
