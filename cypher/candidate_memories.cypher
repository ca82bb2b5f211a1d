// The fields scoring and filtering read (as the vector candidates carry them)
// of the memories full text ranked among its best: its candidate statement
// returns only their text, since most of what it reads is ranked out.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
RETURN m {.id, .project_id, .session_id, .content, .rationale, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} AS memory
