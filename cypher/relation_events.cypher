// Removed relations touching a memory, newest first: who removed each and why.
MATCH (e:RelationEvent)
WHERE e.project_id = $project_id AND (e.from_id = $memory_id OR e.to_id = $memory_id)
RETURN e {.id, .kind, .type, .from_id, .to_id, .rationale, .weight, .created_at, .removed_by, .reason, .at} AS event
ORDER BY e.at DESC, e.id DESC
LIMIT $limit
