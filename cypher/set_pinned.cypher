// Pinning is a person's confirmation: the API then activates a pinned candidate (logged).
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m.pinned = $pinned,
    m.updated_at = $now
RETURN {{memory_projection(m)}} AS memory
