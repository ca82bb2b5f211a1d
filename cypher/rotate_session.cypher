// Archive a full session's oldest working memories; they stay restorable.
MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id AND m.tier = 'working'
WITH m
ORDER BY coalesce(m.last_accessed_at, m.created_at) ASC, m.created_at ASC
LIMIT $count
SET m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = $reason,
    m.updated_at = $now
RETURN m.id AS id
