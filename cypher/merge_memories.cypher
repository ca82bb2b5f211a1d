// Fold one memory into another: counts add up, lists union, the absorbed one
// is archived pointing at the survivor (its edges stay on it, nothing is lost),
// and the survivor is rescored and, if it earned it, activated: one write.
// Both are write-locked before their tiers are read again, so two concurrent
// merges cannot fold the same memory twice; should two merges lock the pair
// in opposite orders, Neo4j reports a deadlock and the driver retries one.
MATCH (into:Memory {id: $into_id})
WHERE into.project_id = $project_id AND coalesce(into.tier, 'working') <> 'archived'
  AND {{visible(into)}}
MATCH (from:Memory {id: $from_id})
WHERE from.project_id = $project_id AND coalesce(from.tier, 'working') <> 'archived'
  AND {{visible(from)}}
SET into._lock = true, from._lock = true
REMOVE into._lock, from._lock
WITH into, from
WHERE coalesce(into.tier, 'working') <> 'archived' AND coalesce(from.tier, 'working') <> 'archived'
// What the merge adds, kept on its log entry so that undo_merge can take it out.
WITH into, from,
     [x IN coalesce(from.evidence, []) WHERE NOT x IN coalesce(into.evidence, [])] AS added_evidence,
     [t IN coalesce(from.tags, []) WHERE NOT t IN coalesce(into.tags, [])] AS added_tags
SET into.occurrence_count = coalesce(into.occurrence_count, 1) + coalesce(from.occurrence_count, 1),
    into.access_count = coalesce(into.access_count, 0) + coalesce(from.access_count, 0),
    into.feedback = coalesce(into.feedback, 0) + coalesce(from.feedback, 0),
    into.feedback_count = coalesce(into.feedback_count, 0) + coalesce(from.feedback_count, 0),
    into.evidence = coalesce(into.evidence, []) + added_evidence,
    into.tags = coalesce(into.tags, []) + added_tags,
    into.last_seen = $now,
    into.updated_at = $now,
    from.archived_from = from.tier,
    from.tier = 'archived',
    from.archived_at = $now,
    from.archive_reason = 'merged into ' + into.id,
    from.merged_into = into.id,
    from.updated_at = $now
CREATE (e:StagingEvent {
  id: $event_id,
  memory_id: into.id,
  project_id: $project_id,
  kind: 'merged',
  signal: 'manual',
  merged_from: from.id,
  occurrences: coalesce(from.occurrence_count, 1),
  accesses: coalesce(from.access_count, 0),
  feedback: coalesce(from.feedback, 0),
  feedback_count: coalesce(from.feedback_count, 0),
  added_evidence: added_evidence,
  added_tags: added_tags,
  content_key: into.content_key,
  at: $now
})
CREATE (e)-[:CHANGED]->(into)
// The absorbed memory's move to the archive, logged for reads of the past.
CREATE (ae:ArchivalEvent {
  id: from.id + ':merged:' + toString($now),
  memory_id: from.id,
  project_id: $project_id,
  kind: 'merged',
  from_tier: from.archived_from,
  to_tier: 'archived',
  reason: from.archive_reason,
  other_id: into.id,
  at: $now
})
CREATE (ae)-[:MOVED]->(from)
// The survivor's score, worked out from the counts read before this write,
// unless a concurrent writer has moved them since (its own rescore wins then).
FOREACH (_ IN CASE WHEN into.access_count = $access_count
                     AND into.feedback_count = $feedback_count THEN [1] ELSE [] END |
  SET into += $importance_fields)
// A candidate the merge made worthy ($signal) is activated by it, once.
WITH into, e, CASE WHEN into.status = 'candidate' THEN $signal END AS activated
FOREACH (_ IN CASE WHEN activated IS NULL THEN [] ELSE [1] END |
  SET into.status = 'active', into.activated_at = $now, e.activated = true
  CREATE (a:StagingEvent {
    id: $activation_id,
    memory_id: into.id,
    project_id: $project_id,
    kind: 'activated',
    signal: activated,
    before: 'candidate',
    after: 'active',
    at: $now
  })
  CREATE (a)-[:CHANGED]->(into))
WITH into AS m, activated
RETURN {{memory_projection(m)}} AS memory, activated
