// Episodic memories of a whole project that have earned a long-term tier: the
// scheduler's consolidation pass, so a memory whose session has closed (and
// will run no more) can still move once its evidence arrives. Same rules and
// scoring as evaluate_session; not moved within the last scheduler period.
MATCH (m:Memory {project_id: $project_id})
WHERE m.tier = 'episodic'
  AND m.memory_type IS NOT NULL
  AND m.content <> ''
  AND m.superseded_by IS NULL
  AND (m.promoted_at IS NULL OR m.promoted_at <= $moved_before)
// Importance as graphmem.scoring computes it, from ImportanceScorer.query_params();
// tests keep this expression and the Python scorer equal.
WITH m,
     ($now - coalesce(m.last_accessed_at, m.created_at)) / 60.0 AS age_minutes,
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
// The memory's own threshold: the lowest of its tags' (tag_thresholds), else the
// run's threshold lowered with age past $decay_start_days (time_decay), never
// below $decay_floor.
WITH m, score, ($now - m.created_at) / 86400.0 AS age_days,
     [t IN coalesce(m.tags, []) WHERE $tag_thresholds[t] IS NOT NULL | [t, $tag_thresholds[t]]] AS tagged
WITH m, score, age_days,
     reduce(best = null, x IN tagged | CASE WHEN best IS NULL OR x[1] < best[1] THEN x ELSE best END) AS tag_rule,
     CASE WHEN age_days > $decay_start_days
          THEN $threshold - $decay_per_day * (age_days - $decay_start_days)
          ELSE $threshold END AS decayed
WITH m, score, age_days, tag_rule,
     CASE WHEN decayed < $decay_floor THEN $decay_floor ELSE decayed END AS decayed
WITH m, score, age_days, tag_rule, decayed,
     CASE WHEN tag_rule IS NOT NULL AND tag_rule[1] < decayed THEN tag_rule[1] ELSE decayed END AS needed
WHERE score >= needed
// Episodic -> long-term needs evidence beyond scoring high again.
WITH m, score, age_days, tag_rule, decayed, needed,
     size([s IN coalesce(m.used_in_sessions, []) WHERE s <> m.session_id]) + 1 AS sessions
WITH m, score, age_days, tag_rule, decayed, needed,
     [x IN [CASE WHEN sessions >= $min_sessions THEN 'used in ' + toString(sessions) + ' sessions' END,
            CASE WHEN coalesce(m.feedback, 0) >= $min_feedback THEN 'feedback +' + toString(m.feedback) END,
            CASE WHEN coalesce(m.occurrence_count, 1) >= $min_occurrences THEN 'written ' + toString(m.occurrence_count) + ' times' END,
            CASE WHEN m.tier = 'episodic' AND $now - coalesce(m.promoted_at, m.created_at) >= $min_dwell_seconds THEN 'dwell' END,
            CASE WHEN coalesce(m.pinned, false) THEN 'pinned' END,
            CASE WHEN tag_rule IS NOT NULL THEN 'tag ' + tag_rule[0] END]
      WHERE x IS NOT NULL] AS evidence
WHERE m.tier <> 'episodic' OR size(evidence) > 0
WITH m, score, age_days, tag_rule, decayed, needed, evidence
ORDER BY score DESC, m.created_at ASC
LIMIT $limit
OPTIONAL MATCH (m)-[c:CONSTRAINS]->(:Memory)
WITH m, score, age_days, tag_rule, decayed, needed, evidence, count(c) > 0 AS constrains
RETURN m {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .updated_at, .last_accessed_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance} AS memory, score, constrains,
       needed AS threshold, decayed, tag_rule, evidence, age_days
ORDER BY score DESC, memory.created_at ASC
