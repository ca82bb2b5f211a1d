// Stale, low-importance memories of one tier in a project; pinned ones never,
// nor, in one agent's view, another agent's private ones.
MATCH (m:Memory {project_id: $project_id})
WHERE m.tier = $tier
  AND coalesce(m.pinned, false) = false
  AND coalesce(m.last_accessed_at, m.occurred_at, m.created_at) < $stale_before
  AND {{visible(m)}}
// Importance as graphmem.domain.scoring computes it (fragments/importance_score.cypher).
{{importance_score(m)}}
WHERE score < $below
RETURN m.id AS id, m.tier AS tier, score
ORDER BY score ASC
LIMIT $limit
