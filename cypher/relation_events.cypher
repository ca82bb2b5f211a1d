// Removed relations touching a memory, newest first: who removed each and why.
MATCH (e:RelationEvent)
WHERE e.project_id = $project_id AND (e.from_id = $memory_id OR e.to_id = $memory_id)
// An event naming another agent's private memory is that agent's alone.
OPTIONAL MATCH (f:Memory {id: e.from_id})
OPTIONAL MATCH (t:Memory {id: e.to_id})
WITH e, f, t
WHERE (f IS NULL OR {{visible(f)}})
  AND (t IS NULL OR {{visible(t)}})
RETURN e {.id, .kind, .type, .from_id, .to_id, .rationale, .weight, .created_at, .removed_by, .reason, .at} AS event
ORDER BY e.at DESC, e.id DESC
LIMIT $limit
