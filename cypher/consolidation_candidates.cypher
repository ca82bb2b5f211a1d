// One page of the memories consolidation may group, in id order after $after
// (keyset pagination over the indexed id, no SKIP): live, active and current,
// with whether each CONSTRAINS another memory or is a failure capsule's lesson
// (such memories stay as written). Never the embedding.
MATCH (m:Memory)
WHERE m.project_id = $project_id AND m.id > $after
  AND coalesce(m.tier, 'working') IN $tiers
  AND coalesce(m.status, 'active') = 'active'
  AND m.superseded_by IS NULL
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
WITH m
ORDER BY m.id
LIMIT $page
RETURN m {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .retrieval_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .last_retrieved_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by} AS memory,
       size([(m)-[:CONSTRAINS]->(c:Memory) | c.id]) > 0 AS constrains,
       size([(f:FailureCapsule)-[:TAUGHT]->(m) | f.id]) > 0 AS taught
