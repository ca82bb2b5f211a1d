// A memory's importance as graphmem.domain.scoring computes it, from
// ImportanceScorer.query_params(): `{{importance_score(m)}}` carries `m` on
// with its `score`, in [0, 1]. Its age counts from its last access, or else
// from when what it records happened (Memory.last_used_at).
// tests keep this expression and the Python scorer equal.
WITH @,
     ($now - coalesce(@.last_accessed_at, @.occurred_at, @.created_at)) / 60.0 AS age_minutes,
     toFloat(coalesce(@.access_count, 0)) AS accesses,
     CASE WHEN coalesce(@.feedback_count, 0) = 0 THEN 0.0
          ELSE toFloat(@.feedback) / @.feedback_count END AS feedback_mean
WITH @, accesses, feedback_mean,
     CASE WHEN age_minutes < 0 THEN 0.0 ELSE age_minutes END AS age_minutes
WITH @,
     CASE WHEN $recency_exponential THEN exp(-age_minutes / $recency_minutes)
          ELSE 1.0 / (1.0 + age_minutes / $recency_minutes) END AS recency,
     CASE WHEN $frequency_log THEN log(1.0 + accesses) / log(1.0 + $frequency_cap)
          ELSE accesses / $frequency_cap END AS frequency,
     (feedback_mean + 1.0) / 2.0 AS feedback
WITH @,
     CASE WHEN @.suggested_by = 'agent' THEN 1.0 ELSE
       $w.recency * recency
       + $w.frequency * (CASE WHEN frequency > 1.0 THEN 1.0 ELSE frequency END)
       + $w.confidence * coalesce(@.confidence, 0.0)
       + $w.salience * coalesce($salience[coalesce(@.memory_type, '')], $default_salience)
       + $w.self_assessment * coalesce($self_assessment[coalesce(@.self_assessment, 'medium')], 0.6)
       + $w.feedback * (CASE WHEN feedback < 0.0 THEN 0.0 WHEN feedback > 1.0 THEN 1.0 ELSE feedback END)
     END AS raw_score
WITH @, CASE WHEN raw_score < 0.0 THEN 0.0 WHEN raw_score > 1.0 THEN 1.0 ELSE raw_score END AS score
