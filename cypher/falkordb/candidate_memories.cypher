// The fields scoring and filtering read (as the vector candidates carry them)
// of the memories full text ranked among its best: its candidate statement
// returns only their text, since most of what it reads is ranked out.
// The fields come as one JSON text (`fields`) with the text beside it: the
// client parses every returned value in Python, and one value to decode costs
// less than twenty. toJSON does not escape quotes or backslashes, so a memory
// holding one in a string field is returned as a map (`memory`) instead; type,
// tier and status are written from fixed values only and are not looked at.
// One match over the list, not one per id (see get_memories.cypher).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
WITH m, none(v IN [m.id, m.project_id, coalesce(m.session_id, ''), coalesce(m.superseded_by, '')] + coalesce(m.tags, [])
            WHERE v CONTAINS '"' OR v CONTAINS '\\') AS clean
RETURN CASE WHEN clean THEN toJSON(m {.id, .project_id, .session_id, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to}) END AS fields,
       CASE WHEN clean THEN null ELSE m {.id, .project_id, .session_id, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} END AS memory,
       m.content AS content, m.rationale AS rationale
