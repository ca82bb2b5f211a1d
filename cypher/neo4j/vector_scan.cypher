// The project's memories nearest to $vector, every one of them scored exactly
// (no index): what retrieval asks instead of the vector index when the
// project, as the viewer reads it, is small (RetrievalConfig.exact_vector_below),
// or when the index's best $k over every project left too few of it. The
// answer then depends on the project's memories only, and is exact. Filters,
// ranks and columns as vector_candidates, which says why each is so; `seen`
// is how many it returns: there is no more to ask for.
MATCH (node:Memory {project_id: $project_id})
WITH node, $tags AS tags
WHERE node.embedding IS NOT NULL
  AND {{visible(node)}}
  AND (size($types) = 0 OR node.memory_type IN $types)
  AND (size($tiers) = 0 OR coalesce(node.tier, 'working') IN $tiers)
  AND ($include_archived OR coalesce(node.tier, 'working') <> 'archived')
  AND (size($statuses) = 0 OR coalesce(node.status, 'active') IN $statuses)
  AND ($include_candidates OR coalesce(node.status, 'active') <> 'candidate')
  AND ($include_superseded OR node.superseded_by IS NULL)
  AND all(t IN tags WHERE t IN coalesce(node.tags, []))
  AND ($session_id IS NULL OR node.session_id = $session_id)
  AND coalesce(node.confidence, 0.7) >= $min_confidence
  AND ($created_after IS NULL OR node.created_at >= $created_after)
  AND ($created_before IS NULL OR node.created_at < $created_before)
  AND ($occurred_after IS NULL OR coalesce(node.occurred_at, node.created_at) >= $occurred_after)
  AND ($occurred_before IS NULL OR coalesce(node.occurred_at, node.created_at) < $occurred_before)
WITH node, 2.0 * vector.similarity.cosine(node.embedding, $vector) - 1.0 AS score
ORDER BY score DESC, node.id
LIMIT $limit
WITH collect([node, score]) AS hits
WITH hits, size(hits) AS seen
UNWIND range(0, size(hits) - 1) AS rank
WITH hits[rank][0] AS node, hits[rank][1] AS score, seen, rank < $detailed AS detailed
RETURN node.id AS id, null AS fields, CASE WHEN detailed THEN node {.id, .project_id, .session_id, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} END AS memory,
       CASE WHEN detailed THEN node.content END AS content, CASE WHEN detailed THEN node.rationale END AS rationale,
       score, seen
