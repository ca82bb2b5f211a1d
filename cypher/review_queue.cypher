// Candidates awaiting review with their evidence. "evidence" order: most
// occurrences and net positive feedback first; "oldest": first written first.
MATCH (m:Memory {project_id: $project_id})
WHERE m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($memory_type IS NULL OR m.memory_type = $memory_type)
  AND all(t IN $tags WHERE t IN m.tags)
  AND ($created_before IS NULL OR m.created_at < $created_before)
  AND coalesce(m.occurrence_count, 1) >= $min_occurrences
  AND {{visible(m)}}
WITH m, coalesce(m.occurrence_count, 1) + coalesce(m.feedback, 0) AS weight
ORDER BY CASE WHEN $order = 'evidence' THEN -weight ELSE 0 END ASC, m.created_at ASC, m.id ASC
SKIP $skip
LIMIT $limit
RETURN {{memory_projection(m)}} AS memory, weight
