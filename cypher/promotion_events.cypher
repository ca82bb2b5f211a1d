// A memory's or a session's promotion history, newest first.
MATCH (e:PromotionEvent)
WHERE e.project_id = $project_id
  AND ($memory_id IS NULL OR e.memory_id = $memory_id)
  AND ($session_id IS NULL OR e.session_id = $session_id)
// An event of another agent's private memory is that agent's alone.
OPTIONAL MATCH (m:Memory {id: e.memory_id})
WITH e, m
WHERE m IS NULL OR {{visible(m)}}
RETURN e {.id, .run_id, .memory_id, .session_id, .trigger, .from_tier, .to_tier, .score,
          .component_names, .component_values, .component_contributions, .at, .reason} AS event
ORDER BY event.at DESC, event.id DESC
LIMIT $limit
