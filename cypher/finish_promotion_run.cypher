// What a run learns after its moves (recorded with them): how many memories
// rotation archived and how many stay in the working tier.
MATCH (r:PromotionRun {id: $run_id})
WHERE r.project_id = $project_id
MATCH (s:Session {project_id: $project_id, id: $session_id})
SET r.rotated = $rotated,
    r.remaining = $remaining,
    r.finished_at = $now,
    s.last_rotated = $rotated,
    s.last_remaining = $remaining
RETURN r.id AS id
