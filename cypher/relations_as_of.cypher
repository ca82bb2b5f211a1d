// The relations of the given types touching $ids as they stood at $as_of:
// those made by then and still there, and those made by then and removed
// after it (kept as :RelationEvent). An edge between two of $ids comes twice.
// Each part matches the whole list at once, not once per id (see
// get_memories.cypher).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
// Walked from m (see memory_history.cypher).
WITH m
MATCH (m)-[r]-(o:Memory)
WITH r, o
WHERE o.project_id = $project_id
  AND {{visible(o)}}
  AND type(r) IN $relation_types
  AND coalesce(r.created_at, 0.0) <= $as_of
RETURN type(r) AS type, startNode(r).id AS from_id, endNode(r).id AS to_id,
       r.rationale AS rationale, r.weight AS weight, r.created_at AS created_at
UNION ALL
MATCH (e:RelationEvent)
WHERE e.from_id IN $ids
  AND e.project_id = $project_id AND e.type IN $relation_types
  AND coalesce(e.created_at, 0.0) <= $as_of AND e.at > $as_of
WITH e
MATCH (o:Memory {id: e.to_id})
WHERE {{visible(o)}}
RETURN e.type AS type, e.from_id AS from_id, e.to_id AS to_id,
       e.rationale AS rationale, e.weight AS weight, e.created_at AS created_at
UNION ALL
MATCH (e:RelationEvent)
WHERE e.to_id IN $ids
  AND e.project_id = $project_id AND e.type IN $relation_types
  AND coalesce(e.created_at, 0.0) <= $as_of AND e.at > $as_of
WITH e
MATCH (o:Memory {id: e.from_id})
WHERE {{visible(o)}}
RETURN e.type AS type, e.from_id AS from_id, e.to_id AS to_id,
       e.rationale AS rationale, e.weight AS weight, e.created_at AS created_at
