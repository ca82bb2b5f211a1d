// One group consolidated, all or nothing: every source is read again under its
// write lock and must still be live, active, current and unchanged since it
// was read (its updated_at, and the counts written without it: accesses,
// feedback, occurrences); if any is not, nothing is written and no row comes
// back. Otherwise the consolidated memory is created in the central source's
// session (retrievals summed here, under the lock; its vector follows through
// set_embeddings), takes over the sources' relations, SUPERSEDES each source
// (the rationale on the edge), and each source is archived with the reason
// that names it, so restore brings it back.
UNWIND $sources AS source
MATCH (m:Memory {id: source.id})
WHERE m.project_id = $project_id AND m.superseded_by IS NULL
SET m._lock = true
REMOVE m._lock
WITH m, source
WHERE m.superseded_by IS NULL AND m.updated_at = source.updated_at
  AND coalesce(m.access_count, 0) = source.access_count
  AND coalesce(m.feedback_count, 0) = source.feedback_count
  AND coalesce(m.occurrence_count, 1) = source.occurrence_count
  AND coalesce(m.tier, 'working') <> 'archived' AND coalesce(m.status, 'active') = 'active'
WITH collect(m) AS members
WHERE size(members) = size($sources)
MATCH (s:Session {project_id: $project_id, id: $session_id})
CREATE (c:Memory)
SET c = $props,
    c.retrieval_count = reduce(total = 0, m IN members | total + coalesce(m.retrieval_count, 0))
CREATE (c)-[:IN_SESSION]->(s)
// The sources' relations to memories outside the group are carried to the
// consolidated memory (a source is never the source of a CONSTRAINS edge).
WITH c, members, [m IN members | m.id] AS ids
CALL {
  WITH c, members, ids
  UNWIND members AS m
  MATCH (m)-[r:RELATED_TO]->(x:Memory)
  WHERE x.project_id = $project_id AND NOT x.id IN ids
  MERGE (c)-[n:RELATED_TO]->(x)
    ON CREATE SET n.created_at = $now, n.rationale = r.rationale, n.weight = r.weight
  RETURN count(*) AS related_to_out
}
CALL {
  WITH c, members, ids
  UNWIND members AS m
  MATCH (x:Memory)-[r:RELATED_TO]->(m)
  WHERE x.project_id = $project_id AND NOT x.id IN ids
  MERGE (x)-[n:RELATED_TO]->(c)
    ON CREATE SET n.created_at = $now, n.rationale = r.rationale, n.weight = r.weight
  RETURN count(*) AS related_to_in
}
CALL {
  WITH c, members, ids
  UNWIND members AS m
  MATCH (m)-[r:ENABLES]->(x:Memory)
  WHERE x.project_id = $project_id AND NOT x.id IN ids
  MERGE (c)-[n:ENABLES]->(x)
    ON CREATE SET n.created_at = $now, n.rationale = r.rationale, n.weight = r.weight
  RETURN count(*) AS enables_out
}
CALL {
  WITH c, members, ids
  UNWIND members AS m
  MATCH (x:Memory)-[r:ENABLES]->(m)
  WHERE x.project_id = $project_id AND NOT x.id IN ids
  MERGE (x)-[n:ENABLES]->(c)
    ON CREATE SET n.created_at = $now, n.rationale = r.rationale, n.weight = r.weight
  RETURN count(*) AS enables_in
}
CALL {
  WITH c, members, ids
  UNWIND members AS m
  MATCH (x:Memory)-[r:CONSTRAINS]->(m)
  WHERE x.project_id = $project_id AND NOT x.id IN ids
  MERGE (x)-[n:CONSTRAINS]->(c)
    ON CREATE SET n.created_at = $now, n.rationale = r.rationale, n.weight = r.weight
  RETURN count(*) AS constrains_in
}
WITH c, members
UNWIND members AS m
CREATE (c)-[r:SUPERSEDES]->(m)
SET r.created_at = $now, r.rationale = $rationale, r.weight = 1.0,
    m.superseded_by = c.id,
    m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = $archive_reason,
    m.updated_at = $now
// Logged, so the tier each source had at any past time can be read back
// (docs/validity.md).
CREATE (ae:ArchivalEvent {
  id: m.id + ':archived:' + toString($now),
  memory_id: m.id,
  project_id: $project_id,
  kind: 'archived',
  from_tier: m.archived_from,
  to_tier: 'archived',
  reason: $archive_reason,
  other_id: c.id,
  at: $now
})
CREATE (ae)-[:MOVED]->(m)
RETURN c.id AS id, collect(m.id) AS sources
