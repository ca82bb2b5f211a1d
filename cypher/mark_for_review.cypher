// A change's marks: each memory resting on a changed one needs review. A newer
// mark replaces an older one; each is logged as a staging step ('marked').
// The :NeedsReview label is for Neo4j Browser, which styles nodes by label only.
UNWIND $marks AS mark
MATCH (d:Memory {id: mark.id})
WHERE d.project_id = $project_id
SET d:NeedsReview,
    d.review_change = mark.change,
    d.review_cause = mark.cause,
    d.review_by = mark.by,
    d.review_path = mark.path,
    d.review_marked_at = $now
CREATE (e:StagingEvent {
  id: d.id + ':marked:' + toString($now),
  memory_id: d.id,
  project_id: $project_id,
  kind: 'marked',
  signal: mark.change,
  before: null,
  after: mark.cause,
  at: $now
})
CREATE (e)-[:CHANGED]->(d)
RETURN d.id AS id
