MATCH (e:StagingEvent)
WHERE e.project_id = $project_id AND e.memory_id = $memory_id
// An event of another agent's private memory is that agent's alone.
OPTIONAL MATCH (m:Memory {id: e.memory_id})
WITH e, m
WHERE m IS NULL OR {{visible(m)}}
RETURN e {.id, .memory_id, .kind, .signal, .before, .after, .similarity, .merged_from, by: e.undone_by, .at} AS event
ORDER BY event.at DESC
LIMIT $limit
