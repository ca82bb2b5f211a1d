// Marks taken away: those of $ids (a reviewer confirmed them), or those a change
// of $changes to one of $causes left (the change was undone). Each is logged ('confirmed' or
// 'cleared', with the reviewer's reason), once: the mark is read again under the
// memory's write lock.
MATCH (d:Memory)
WHERE d.project_id = $project_id
  AND d.review_change IS NOT NULL
  AND (d.id IN $ids OR (d.review_cause IN $causes AND d.review_change IN $changes))
  AND {{visible(d)}}
SET d._lock = true
REMOVE d._lock
WITH d
WHERE d.review_change IS NOT NULL
  AND (d.id IN $ids OR (d.review_cause IN $causes AND d.review_change IN $changes))
CREATE (e:StagingEvent {
  id: d.id + ':' + $kind + ':' + toString($now),
  memory_id: d.id,
  project_id: $project_id,
  kind: $kind,
  signal: $reason,
  before: d.review_cause,
  after: null,
  at: $now
})
CREATE (e)-[:CHANGED]->(d)
REMOVE d:NeedsReview, d.review_change, d.review_cause, d.review_by, d.review_path, d.review_marked_at
RETURN d.id AS id
