// A memory and every memory within $depth relations of it (types as asked,
// either direction, inside the project), at most $max_nodes of them.
MATCH (c:Memory {id: $id})
WHERE c.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(c.visibility, 'shared') = 'shared' OR c.agent_id = $viewer)
OPTIONAL MATCH p = (c)-[:CONSTRAINS|ENABLES|RELATED_TO|SUPERSEDES*1..3]-(o:Memory)
WHERE length(p) <= $depth
  AND o.id <> c.id
  AND all(r IN relationships(p) WHERE type(r) IN $relation_types)
  AND all(n IN nodes(p) WHERE n.project_id = $project_id)
  AND all(n IN nodes(p) WHERE ($viewer IS NULL OR coalesce(n.visibility, 'shared') = 'shared' OR n.agent_id = $viewer))
WITH c, collect(DISTINCT o) AS reached
RETURN c {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .retrieval_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .last_retrieved_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by} AS center,
       [o IN reached[..$max_nodes] | o {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .retrieval_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .last_retrieved_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by}] AS nodes,
       size(reached) AS reachable
