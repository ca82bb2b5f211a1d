// graphmem: a session's promotion history
// The promotion runs of session $session_id and every memory they moved,
// each through the PromotionEvent that logged the move (tiers, score,
// trigger), newest first, with the times as UTC datetimes.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones; the moves of others' private memories are left out);
// $viewer null shows every memory, for administrators.
// Before: :param project_id => 'default'
//         :param session_id => '<session id>'
//         :param viewer => null
MATCH (s:Session {project_id: $project_id, id: $session_id})
OPTIONAL MATCH (run:PromotionRun)-[:FOR_SESSION]->(s)
OPTIONAL MATCH (event:PromotionEvent {run_id: run.id})-[promoted:PROMOTED]->(m:Memory)
WHERE $viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer
RETURN s, run, event, promoted, m,
       CASE WHEN run.finished_at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(run.finished_at * 1000)}) END AS run_finished,
       CASE WHEN event.at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(event.at * 1000)}) END AS moved_at,
       event.from_tier AS from_tier, event.to_tier AS to_tier, event.score AS score
ORDER BY run.finished_at DESC, event.at DESC
LIMIT 300
