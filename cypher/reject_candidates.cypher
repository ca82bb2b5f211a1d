// Rejection archives with the reason; nothing is deleted. Status and tier are
// read again under the memory's write lock, so a concurrent rejection or
// archival cannot make it log twice or remember 'archived' as its tier.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id AND m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
  AND {{visible(m)}}
SET m._lock = true
REMOVE m._lock
WITH m, wanted
WHERE m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
SET m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = $reason,
    m.updated_at = $now
CREATE (e:StagingEvent {
  id: wanted + ':' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'rejected',
  signal: $reason,
  before: 'candidate',
  after: 'archived',
  at: $now
})
CREATE (e)-[:CHANGED]->(m)
// The tier move is logged too, so the tier it had at any past time can be read back.
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
