// Newest first; the cursor is the (created_at, id) of the last row seen.
// A memory written before statuses existed counts as active.
MATCH (m:Memory {project_id: $project_id})
WHERE ($tier IS NULL OR m.tier = $tier)
  AND ($include_archived OR coalesce(m.tier, 'working') <> 'archived' OR $tier = 'archived')
  AND ($status IS NULL OR coalesce(m.status, 'active') = $status)
  AND ($include_candidates OR coalesce(m.status, 'active') <> 'candidate')
  AND ($memory_type IS NULL OR m.memory_type = $memory_type)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($pinned IS NULL OR m.pinned = $pinned)
  AND all(t IN $tags WHERE t IN m.tags)
  AND {{visible(m)}}
  AND ($after_created_at IS NULL
       OR m.created_at < $after_created_at
       OR (m.created_at = $after_created_at AND m.id < $after_id))
WITH m
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
RETURN {{memory_projection(m)}} AS memory
