// Memories archived before $expired_before (archive_expiry): what the purge will
// export, oldest first, with their relations so the export can restore them.
MATCH (m:Memory {project_id: $project_id})
WHERE m.tier = 'archived' AND m.archived_at < $expired_before
WITH m ORDER BY m.archived_at ASC, m.id ASC LIMIT $limit
OPTIONAL MATCH (m)-[r:CONSTRAINS|ENABLES|SUPERSEDES|RELATED_TO]-(other:Memory)
WITH m, collect(CASE WHEN r IS NULL THEN NULL ELSE
       {type: type(r), from_id: startNode(r).id, to_id: endNode(r).id,
        rationale: r.rationale, weight: r.weight, created_at: r.created_at} END) AS relations
RETURN m {.id, .project_id, .session_id, .content, .memory_type, .tier, .status, .confidence, .importance, .access_count, .occurrence_count, .feedback, .feedback_count, .pinned, .source, .suggested_by, .self_assessment, .tags, .rationale, .evidence, .agent_id, .superseded_by, .created_at, .updated_at, .last_accessed_at, .promoted_at, .archived_at, .archived_from, .archive_reason, .activated_at, .last_seen, .merged_into, .evaluator_relevance, .variants, .conflicts_with, .conflict_reason, .valid_from, .valid_to, .visibility, .copied_from, .copied_from_project, .copied_at, .copied_by} AS memory,
       relations
ORDER BY memory.archived_at ASC, memory.id ASC
