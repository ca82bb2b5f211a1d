// The run's record and the session's running stats, in one write.
MATCH (s:Session {project_id: $project_id, id: $session_id})
CREATE (r:PromotionRun {
  id: $run_id,
  project_id: $project_id,
  session_id: $session_id,
  trigger: $trigger,
  started_at: $started_at,
  finished_at: $now,
  promoted: $promoted,
  failed: $failed,
  rotated: $rotated,
  remaining: $remaining,
  threshold: $threshold
})
CREATE (r)-[:FOR_SESSION]->(s)
SET s.promotion_runs = coalesce(s.promotion_runs, 0) + 1,
    s.promotion_total = coalesce(s.promotion_total, 0) + $promoted,
    s.last_run_at = $now,
    s.last_run_id = $run_id,
    s.last_trigger = $trigger,
    s.last_promoted = $promoted,
    s.last_failed = $failed,
    s.last_rotated = $rotated,
    s.last_remaining = $remaining,
    s.last_threshold = $threshold
RETURN s.promotion_runs AS runs
