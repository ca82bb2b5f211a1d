// The tier is read again under the memory's write lock: of two concurrent
// restores, the second finds it restored and changes nothing.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id AND m.tier = 'archived'
  AND {{visible(m)}}
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.tier = 'archived'
// REMOVE rather than SET to null: FalkorDB drops some of several nulls set in one SET.
SET m.tier = coalesce(m.archived_from, 'working'),
    m.last_accessed_at = $now,
    m.updated_at = $now
// Logged, so the tier it had at any past time can be read back (docs/validity.md).
CREATE (ae:ArchivalEvent {
  id: m.id + ':restored:' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'restored',
  from_tier: 'archived',
  to_tier: m.tier,
  reason: $reason,
  other_id: null,
  at: $now
})
CREATE (ae)-[:MOVED]->(m)
REMOVE m.archived_at, m.archived_from, m.archive_reason
// Rescored as just used, unless a concurrent writer moved its counters since
// they were read (its own rescore wins then).
FOREACH (_ IN CASE WHEN coalesce(m.access_count, 0) = $access_count
                     AND coalesce(m.feedback_count, 0) = $feedback_count THEN [1] ELSE [] END |
  SET m += $importance_fields)
RETURN {{memory_projection(m)}} AS memory
