// graphmem: a session's promotion history
// The promotion runs of session $session_id and every memory they moved,
// each through the PromotionEvent that logged the move (tiers, score, trigger).
// Before: :param project_id => 'default'
//         :param session_id => '<session id>'
MATCH (s:Session {project_id: $project_id, id: $session_id})
OPTIONAL MATCH (run:PromotionRun)-[:FOR_SESSION]->(s)
OPTIONAL MATCH (event:PromotionEvent {run_id: run.id})-[promoted:PROMOTED]->(m:Memory)
RETURN s, run, event, promoted, m
ORDER BY run.finished_at DESC, event.at DESC
LIMIT 300
