// Who shared, unshared or copied which memory, newest first; an event of
// another agent's private memory is that agent's alone.
MATCH (e:SharingEvent)
WHERE e.project_id = $project_id
  AND ($memory_id IS NULL OR e.memory_id = $memory_id)
OPTIONAL MATCH (m:Memory {id: e.memory_id})
WITH e, m
WHERE m IS NULL OR {{visible(m)}}
RETURN e {.id, .memory_id, .kind, .by, .from_visibility, .to_visibility, .to_project_id, .copy_id, .at} AS event
ORDER BY event.at DESC, event.id DESC
LIMIT $limit
