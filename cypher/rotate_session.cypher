// Archive a full session's oldest working memories; they stay restorable. A
// rotation acting as an agent ($viewer) archives only what that agent may read.
// Each is write-locked and its tier read again, so a concurrent rotation or
// archival cannot record 'archived' as the tier to restore to.
MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id AND m.tier = 'working'
  AND {{visible(m)}}
WITH m
ORDER BY coalesce(m.last_accessed_at, m.occurred_at, m.created_at) ASC, m.created_at ASC
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
// Logged, so the tier it had at any past time can be read back (docs/validity.md).
CREATE (ae:ArchivalEvent {
  id: m.id + ':archived:' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'archived',
  from_tier: m.archived_from,
  to_tier: 'archived',
  reason: $reason,
  other_id: null,
  at: $now
})
CREATE (ae)-[:MOVED]->(m)
RETURN m.id AS id
