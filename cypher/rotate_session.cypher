// Archive a full session's oldest working memories; they stay restorable.
// Each is write-locked and its tier read again, so a concurrent rotation or
// archival cannot record 'archived' as the tier to restore to.
MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id AND m.tier = 'working'
WITH m
ORDER BY coalesce(m.last_accessed_at, m.created_at) ASC, m.created_at ASC
LIMIT $count
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.tier = 'working'
SET m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = $reason,
    m.updated_at = $now
RETURN m.id AS id
