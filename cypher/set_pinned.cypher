// Pinning is a person's confirmation: the API then activates a pinned candidate (logged).
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
SET m.pinned = $pinned,
    m.updated_at = $now
RETURN {{memory_projection(m)}} AS memory
