// The strongest relevance evidence seen is kept.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
SET m.evaluator_relevance = CASE
      WHEN m.evaluator_relevance IS NULL OR m.evaluator_relevance < $relevance THEN $relevance
      ELSE m.evaluator_relevance END,
    m.updated_at = $now
RETURN m {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .retrieval_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .last_retrieved_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by} AS memory
