MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m.feedback = coalesce(m.feedback, 0) + $value,
    m.feedback_count = coalesce(m.feedback_count, 0) + 1,
    m.updated_at = $now
RETURN {{memory_projection(m)}} AS memory
