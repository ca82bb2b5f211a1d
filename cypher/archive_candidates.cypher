// Stale, low-importance memories of one tier in a project; pinned ones never.
MATCH (m:Memory {project_id: $project_id})
WHERE m.tier = $tier
  AND coalesce(m.pinned, false) = false
  AND coalesce(m.last_accessed_at, m.occurred_at, m.created_at) < $stale_before
// Importance as graphmem.scoring computes it, from ImportanceScorer.query_params();
// tests keep this expression and the Python scorer equal.
WITH m,
     ($now - coalesce(m.last_accessed_at, m.occurred_at, m.created_at)) / 60.0 AS age_minutes,
     toFloat(coalesce(m.access_count, 0)) AS accesses,
     CASE WHEN coalesce(m.feedback_count, 0) = 0 THEN 0.0
          ELSE toFloat(m.feedback) / m.feedback_count END AS feedback_mean
WITH m, accesses, feedback_mean,
     CASE WHEN age_minutes < 0 THEN 0.0 ELSE age_minutes END AS age_minutes
WITH m,
     CASE WHEN $recency_exponential THEN exp(-age_minutes / $recency_minutes)
          ELSE 1.0 / (1.0 + age_minutes / $recency_minutes) END AS recency,
     CASE WHEN $frequency_log THEN log(1.0 + accesses) / log(1.0 + $frequency_cap)
          ELSE accesses / $frequency_cap END AS frequency,
     (feedback_mean + 1.0) / 2.0 AS feedback
WITH m,
     CASE WHEN m.suggested_by = 'agent' THEN 1.0 ELSE
       $w.recency * recency
       + $w.frequency * (CASE WHEN frequency > 1.0 THEN 1.0 ELSE frequency END)
       + $w.confidence * coalesce(m.confidence, 0.0)
       + $w.salience * coalesce($salience[coalesce(m.memory_type, '')], $default_salience)
       + $w.self_assessment * coalesce($self_assessment[coalesce(m.self_assessment, 'medium')], 0.6)
       + $w.feedback * (CASE WHEN feedback < 0.0 THEN 0.0 WHEN feedback > 1.0 THEN 1.0 ELSE feedback END)
     END AS raw_score
WITH m, CASE WHEN raw_score < 0.0 THEN 0.0 WHEN raw_score > 1.0 THEN 1.0 ELSE raw_score END AS score
WHERE score < $below
RETURN m.id AS id, m.tier AS tier, score
ORDER BY score ASC
LIMIT $limit
