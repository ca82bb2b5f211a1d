// The increment happens in the database so concurrent accesses never lose one.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m.access_count = coalesce(m.access_count, 0) + 1,
    m.last_accessed_at = $now
RETURN {{memory_projection(m)}} AS memory
