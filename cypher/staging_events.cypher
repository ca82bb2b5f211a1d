MATCH (e:StagingEvent)
WHERE e.project_id = $project_id AND e.memory_id = $memory_id
RETURN e {.id, .memory_id, .kind, .signal, .before, .after, .similarity, .merged_from, .at} AS event
ORDER BY event.at DESC
LIMIT $limit
