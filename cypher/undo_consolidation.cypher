// A consolidation taken back: each source it superseded and archived is
// current again in the tier it had (the SUPERSEDES edge removed, logged as a
// :RelationEvent with who and why; the validity the edge closed reopened), and
// the consolidated memory is archived with the reason. Only a consolidated
// memory still current, whose sources are all still archived by it, is undone;
// everything is read again under the write locks, so a second undo gets no row.
MATCH (c:Memory {id: $id})
WHERE c.project_id = $project_id AND c.source = 'consolidated'
  AND {{visible(c)}}
SET c._lock = true
REMOVE c._lock
WITH c
WHERE coalesce(c.tier, 'working') <> 'archived' AND c.superseded_by IS NULL AND c.source = 'consolidated'
MATCH (c)-[r:SUPERSEDES]->(m:Memory)
WHERE m.project_id = $project_id AND m.archive_reason = $archive_reason
SET m._lock = true
REMOVE m._lock
WITH c, r, m
WHERE m.superseded_by = c.id AND m.tier = 'archived' AND m.archive_reason = $archive_reason
// All or nothing: every source the reader saw is still the consolidation's.
WITH c, collect(m) AS sources, collect(r) AS edges
WHERE size(sources) = $count
UNWIND range(0, size(sources) - 1) AS i
WITH c, sources[i] AS m, edges[i] AS r
CREATE (re:RelationEvent {
  id: m.id + ':unconsolidated:' + toString($now),
  project_id: $project_id,
  kind: 'removed',
  type: 'SUPERSEDES',
  from_id: c.id,
  to_id: m.id,
  rationale: r.rationale,
  weight: r.weight,
  created_at: r.created_at,
  removed_by: $by,
  reason: $reason,
  at: $now
})
DELETE r
SET m.tier = coalesce(m.archived_from, 'working'),
    m.updated_at = $now
CREATE (ae:ArchivalEvent {
  id: m.id + ':restored:' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'restored',
  from_tier: 'archived',
  to_tier: m.tier,
  reason: $reason,
  other_id: c.id,
  at: $now
})
CREATE (ae)-[:MOVED]->(m)
FOREACH (_ IN CASE WHEN m.valid_to_by = c.id THEN [1] ELSE [] END |
  REMOVE m.valid_to, m.valid_to_by)
REMOVE m.superseded_by, m.archived_at, m.archived_from, m.archive_reason
WITH c, collect(m.id) AS restored
SET c.archived_from = c.tier,
    c.tier = 'archived',
    c.archived_at = $now,
    c.archive_reason = $archived_reason,
    c.updated_at = $now
CREATE (ae:ArchivalEvent {
  id: c.id + ':archived:' + toString($now),
  memory_id: c.id,
  project_id: $project_id,
  kind: 'archived',
  from_tier: c.archived_from,
  to_tier: 'archived',
  reason: $archived_reason,
  other_id: null,
  at: $now
})
CREATE (ae)-[:MOVED]->(c)
RETURN c.id AS id, restored
