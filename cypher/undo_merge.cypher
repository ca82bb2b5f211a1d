// A person's merge taken back: the survivor gives up what the merge added (the
// counts, evidence and tags the absorbed memory brought; its activation, if
// the merge made it), and the absorbed memory returns to the tier it had, no
// longer merged into anything. The log entry is read again under the locks,
// so of two undos of one merge the second changes nothing and gets no row.
MATCH (into:Memory {id: $into_id})
WHERE into.project_id = $project_id AND {{visible(into)}}
MATCH (from:Memory {id: $from_id})
WHERE from.project_id = $project_id AND {{visible(from)}}
MATCH (e:StagingEvent {memory_id: $into_id})
WHERE e.id = $event_id AND e.project_id = $project_id
SET into._lock = true, from._lock = true, e._lock = true
REMOVE into._lock, from._lock, e._lock
WITH into, from, e
WHERE e.undone_at IS NULL AND from.merged_into = into.id AND from.tier = 'archived'
  AND into.content_key = e.content_key
  AND coalesce(into.occurrence_count, 1) - e.occurrences >= 1
SET into.occurrence_count = coalesce(into.occurrence_count, 1) - e.occurrences,
    into.access_count = coalesce(into.access_count, 0) - e.accesses,
    into.feedback = coalesce(into.feedback, 0) - e.feedback,
    into.feedback_count = coalesce(into.feedback_count, 0) - e.feedback_count,
    into.evidence = [x IN coalesce(into.evidence, []) WHERE NOT x IN coalesce(e.added_evidence, [])],
    into.tags = [t IN coalesce(into.tags, []) WHERE NOT t IN coalesce(e.added_tags, [])],
    into.updated_at = $now,
    into += $importance_fields,
    from.tier = coalesce(from.archived_from, 'working'),
    from.updated_at = $now,
    e.undone_at = $now
FOREACH (_ IN CASE WHEN e.activated AND into.status = 'active' THEN [1] ELSE [] END |
  SET into.status = 'candidate')
FOREACH (_ IN CASE WHEN e.activated THEN [1] ELSE [] END |
  REMOVE into.activated_at)
// Logged like a restore, so the tier it had at any past time can be read back.
CREATE (ae:ArchivalEvent {
  id: from.id + ':restored:' + toString($now),
  memory_id: from.id,
  project_id: $project_id,
  kind: 'restored',
  from_tier: 'archived',
  to_tier: from.tier,
  reason: $reason,
  other_id: into.id,
  at: $now
})
CREATE (ae)-[:MOVED]->(from)
// REMOVE rather than SET to null: FalkorDB drops some of several nulls set in one SET.
REMOVE from.archived_at, from.archived_from, from.archive_reason, from.merged_into
RETURN into.id AS id, from.id AS restored
