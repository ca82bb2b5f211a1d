// The memories nearest to $vector, scored by cosine similarity (1.0 = same
// direction; Neo4j reports cosine as (1 + cos) / 2).
// The index spans every project: its best $k are taken, then the project and
// the filters apply to those (filtering every match first costs more than the
// search). `seen` is how many the index gave: while the filters leave too few,
// the caller asks again with a larger $k unless the index gave every memory
// the store holds (FalkorDB 4.16 can give fewer than $k while it holds more).
// A missing status counts as active, a missing tier as working.
// Candidates carry only what scoring and filtering read (parsing every field
// of every candidate costs more than the query); results are re-read in full.
// Only the best $detailed come with their fields and text: the others lend
// their scores to candidates full text found and set the floor of the rest
// (graphmem/services/retrieval/retrievers.py), and a second query vector ($detailed 0)
// rescores candidates already found. The rank is counted after the filters.
CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) YIELD node, score
WITH collect([node, 2.0 * score - 1.0]) AS top
UNWIND top AS hit
WITH hit[0] AS node, hit[1] AS score, size(top) AS seen, $tags AS tags
WHERE node.project_id = $project_id
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
WITH node, score, seen
ORDER BY score DESC, node.id
LIMIT $limit
WITH collect([node, score]) AS hits, seen
UNWIND range(0, size(hits) - 1) AS rank
WITH hits[rank][0] AS node, hits[rank][1] AS score, seen, rank < $detailed AS detailed
RETURN node.id AS id, null AS fields, CASE WHEN detailed THEN node {.id, .project_id, .session_id, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} END AS memory,
       CASE WHEN detailed THEN node.content END AS content, CASE WHEN detailed THEN node.rationale END AS rationale,
       score, seen
