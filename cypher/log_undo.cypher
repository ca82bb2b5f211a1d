// An undo, logged on the memory it was asked of: what it took back, who and why.
MATCH (m:Memory {id: $memory_id})
WHERE m.project_id = $project_id
CREATE (e:StagingEvent {
  id: $event_id,
  memory_id: m.id,
  project_id: $project_id,
  kind: 'undone',
  signal: $reason,
  before: $curation,
  after: $undone,
  undone_by: $by,
  at: $now
})
CREATE (e)-[:CHANGED]->(m)
RETURN e.id AS id
