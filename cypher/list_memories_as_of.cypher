// The memories graphmem held at $as_of (written by then) that held then
// (valid_from <= $as_of < valid_to), newest first, the cursor the (created_at,
// id) of the last row seen. Their tier and status then come from the event
// logs (graphmem.domain.validity), so the caller applies the tier, status and
// archived filters; a memory without valid_from holds from when it happened.
MATCH (m:Memory {project_id: $project_id})
WHERE m.created_at <= $as_of
  AND coalesce(m.valid_from, m.occurred_at, m.created_at) <= $as_of
  AND (m.valid_to IS NULL OR m.valid_to > $as_of)
  AND {{visible(m)}}
  AND ($memory_type IS NULL OR m.memory_type = $memory_type)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($pinned IS NULL OR m.pinned = $pinned)
  AND all(t IN $tags WHERE t IN m.tags)
  AND ($after_created_at IS NULL
       OR m.created_at < $after_created_at
       OR (m.created_at = $after_created_at AND m.id < $after_id))
WITH m
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
RETURN {{memory_projection(m)}} AS memory
