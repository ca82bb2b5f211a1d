// Promotion candidates of one session: short-term, typed, non-empty, current
// (not superseded), not moved within the last scheduler period (no memory climbs
// two tiers in one), scored in the database so only what moves comes back.
// A run acting as an agent ($viewer) weighs only what that agent may read.
MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
  AND m.tier IN $tiers
  AND m.memory_type IS NOT NULL
  AND m.content <> ''
  AND m.superseded_by IS NULL
  AND (m.promoted_at IS NULL OR m.promoted_at <= $moved_before)
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
// The memory's own threshold (graphmem.promotion.threshold_for, kept equal by a
// test): the run's, lowered with age by time_decay, or its lowest tag's if lower.
WITH m, score, $threshold - ($decay_origin - m.created_at) * $decay_rate AS needed,
     reduce(b = 2.0, t IN coalesce(m.tags, []) | CASE WHEN $tags[t] < b THEN $tags[t] ELSE b END) AS tag
WITH m, score, tag, CASE WHEN needed > $threshold THEN $threshold WHEN needed < $floor THEN $floor ELSE needed END AS needed
WITH m, score, tag, CASE WHEN tag < needed THEN tag ELSE needed END AS needed
// Episodic -> long-term needs evidence beyond scoring high again (semantic_evidence).
WHERE score >= needed AND (m.tier <> 'episodic' OR tag < 2 OR m.pinned OR m.feedback >= $feedback
  OR size(coalesce(m.used_in_sessions, [])) >= $sessions OR m.occurrence_count >= $occurrences
  OR coalesce(m.promoted_at, m.created_at) <= $dwelt_before)
WITH m, score, needed
ORDER BY score DESC, m.created_at ASC
LIMIT $limit
OPTIONAL MATCH (m)-[c:CONSTRAINS]->(:Memory)
WITH m, score, needed, count(c) > 0 AS constrains
RETURN m {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .retrieval_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .last_retrieved_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by} AS memory, score, constrains,
       needed AS threshold, size(coalesce(m.used_in_sessions, [])) + 1 AS sessions
ORDER BY score DESC, memory.created_at ASC
