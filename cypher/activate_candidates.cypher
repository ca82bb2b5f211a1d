// candidate -> active, once: the status condition makes a repeat a no-op with
// no second log entry. It is read again under the memory's write lock (SET
// then REMOVE leaves no trace): Neo4j reads without locking, so of two
// concurrent activations only the first logs an event there.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND m.status = 'candidate'
  AND {{visible(m)}}
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE m.status = 'candidate'
SET m.status = 'active',
    m.activated_at = $now,
    m.updated_at = $now
CREATE (e:StagingEvent {
  id: item.event_id,
  memory_id: m.id,
  project_id: $project_id,
  kind: 'activated',
  signal: item.signal,
  before: 'candidate',
  after: 'active',
  at: $now
})
CREATE (e)-[:CHANGED]->(m)
RETURN m.id AS id
