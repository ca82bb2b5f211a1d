// Conditional on the tier each memory was seen in, like promotion; the tier
// is read again under the memory's write lock, so a concurrent archiver
// cannot record 'archived' as the tier to restore to.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND m.tier = item.tier
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE m.tier = item.tier
SET m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = item.reason,
    m.importance = item.score,
    m.updated_at = $now
// Logged, so the tier it had at any past time can be read back (docs/validity.md).
CREATE (ae:ArchivalEvent {
  id: m.id + ':archived:' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'archived',
  from_tier: m.archived_from,
  to_tier: 'archived',
  reason: item.reason,
  other_id: null,
  at: $now
})
CREATE (ae)-[:MOVED]->(m)
RETURN m.id AS id
