MATCH (s:Session {project_id: $project_id, id: $session_id})
SET s.promotion_enabled = $enabled,
    s.promotion_interval_seconds = coalesce($interval_seconds, s.promotion_interval_seconds),
    s.next_promotion_at = CASE WHEN $enabled THEN $now + coalesce($interval_seconds, s.promotion_interval_seconds, $default_interval) ELSE null END,
    s.updated_at = $now
RETURN s.id AS id
