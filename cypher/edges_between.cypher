// The relations of the given types whose both ends are among $ids.
UNWIND $ids AS from_id
MATCH (a:Memory {id: from_id})-[r]->(b:Memory)
WHERE a.project_id = $project_id
  AND b.project_id = $project_id
  AND {{visible(a)}}
  AND {{visible(b)}}
  AND b.id IN $ids
  AND type(r) IN $relation_types
RETURN type(r) AS type, a.id AS from_id, b.id AS to_id, r.rationale AS rationale,
       r.weight AS weight, r.created_at AS created_at
ORDER BY created_at, from_id, to_id
