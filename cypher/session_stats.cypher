MATCH (s:Session {project_id: $project_id, id: $session_id})
RETURN s {.id, .project_id, .promotion_enabled, .promotion_interval_seconds, .next_promotion_at,
          .promotion_runs, .promotion_total, .last_run_at, .last_run_id, .last_trigger,
          .last_promoted, .last_failed, .last_rotated, .last_remaining, .last_threshold} AS stats
