// The fields scoring and filtering read (as the vector candidates carry them)
// of the memories full text ranked among its best: its candidate statement
// returns only their text, since most of what it reads is ranked out.
// `fields` is FalkorDB's JSON form of the map (cypher/falkordb), null here.
// One match over the list, not one per id (see get_memories.cypher): the
// caller keys the rows by id.
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
RETURN null AS fields, m {.id, .project_id, .session_id, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} AS memory, m.content AS content, m.rationale AS rationale
