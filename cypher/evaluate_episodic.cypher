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
// Importance as graphmem.domain.scoring computes it (fragments/importance_score.cypher).
{{importance_score(m)}}
// The memory's own threshold (graphmem.services.promotion.threshold_for, kept equal by a
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
RETURN {{memory_projection(m)}} AS memory, score, constrains,
       needed AS threshold, size(coalesce(m.used_in_sessions, [])) + 1 AS sessions
ORDER BY score DESC, memory.created_at ASC
