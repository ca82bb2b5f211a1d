// Safe fix: a live memory outside any session of its project is archived (not
// deleted: restore brings it back), conditional on the tier it was seen in,
// which is read again under the memory's write lock.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND coalesce(m.tier, 'working') = item.tier
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE coalesce(m.tier, 'working') = item.tier
SET m.archived_from = coalesce(m.tier, 'working'),
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
