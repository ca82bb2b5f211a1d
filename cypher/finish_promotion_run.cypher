// What a run learns after its moves (recorded with them): which memories
// rotation archived, and how many of the session's memories stay in the working
// tier (every one, whoever ran it: each caller reads the record back counted
// over what it may read, session_stats_seen).
MATCH (r:PromotionRun {id: $run_id})
WHERE r.project_id = $project_id
MATCH (s:Session {project_id: $project_id, id: $session_id})
OPTIONAL MATCH (w:Memory {session_id: $session_id})
WHERE w.project_id = $project_id AND w.tier = 'working'
WITH r, s, count(w) AS remaining
SET r.rotated = size($rotated_ids),
    r.rotated_ids = $rotated_ids,
    r.remaining = remaining,
    r.finished_at = $now,
    s.last_rotated = size($rotated_ids),
    s.last_remaining = remaining
RETURN r.id AS id
