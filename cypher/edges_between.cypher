// The relations of the given types whose both ends are among $ids. One match
// over the list, not one per id (see get_memories.cypher); the far end is
// reached from the near one and only then compared with the list, so it is
// never looked up by id.
MATCH (a:Memory)
WHERE a.id IN $ids
  AND a.project_id = $project_id
  AND {{visible(a)}}
MATCH (a)-[r]->(b:Memory)
WITH a, r, b
WHERE b.id IN $ids
  AND b.project_id = $project_id
  AND {{visible(b)}}
  AND type(r) IN $relation_types
RETURN type(r) AS type, a.id AS from_id, b.id AS to_id, r.rationale AS rationale,
       r.weight AS weight, r.created_at AS created_at
ORDER BY created_at, from_id, to_id
