// Remove one typed edge between two memories of a project, logged as a
// :RelationEvent that keeps the edge's fields, who removed it and why. A
// removed SUPERSEDES edge restores the memory it superseded (reads skip a
// memory only while superseded_by names a successor), unless another memory
// still supersedes it: superseded_by then names the one whose edge is newest,
// as reads of the past do (graphmem/domain/validity.py). No edge: no row, no write.
MATCH (a:Memory {id: $from_id})-[r]->(b:Memory {id: $to_id})
WHERE a.project_id = $project_id AND b.project_id = $project_id AND type(r) = $type
  AND {{visible(a)}}
  AND {{visible(b)}}
WITH a, b, r, r.rationale AS rationale, r.weight AS weight, r.created_at AS created_at
LIMIT 1
CREATE (e:RelationEvent {
  id: $event_id,
  project_id: $project_id,
  kind: 'removed',
  type: $type,
  from_id: a.id,
  to_id: b.id,
  rationale: rationale,
  weight: weight,
  created_at: created_at,
  removed_by: $removed_by,
  reason: $reason,
  at: $now
})
DELETE r
WITH a, b, e, rationale, weight, created_at
OPTIONAL MATCH (other:Memory)-[still:SUPERSEDES]->(b)
WHERE other <> a AND other.project_id = $project_id
WITH a, b, e, rationale, weight, created_at, other
ORDER BY still.created_at DESC
LIMIT 1
FOREACH (_ IN CASE WHEN $type = 'SUPERSEDES' AND b.superseded_by = a.id THEN [1] ELSE [] END |
  SET b.superseded_by = other.id, b.updated_at = $now)
// ... and reopens its validity, when this relation closed it.
FOREACH (_ IN CASE WHEN $type = 'SUPERSEDES' AND b.valid_to_by = a.id THEN [1] ELSE [] END |
  REMOVE b.valid_to, b.valid_to_by)
RETURN a.id AS from_id, b.id AS to_id, rationale, weight, created_at
