// Delete expired archived memories (already exported), each purge logged as an
// event. The tier and archive time are read again under the memory's write
// lock: a memory a concurrent restore brought back is kept.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND m.tier = 'archived' AND m.archived_at < $expired_before
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE m.tier = 'archived' AND m.archived_at < $expired_before
CREATE (:PurgeEvent {
  id: item.event_id,
  memory_id: m.id,
  project_id: $project_id,
  session_id: m.session_id,
  archived_at: m.archived_at,
  export_file: $export_file,
  reason: $reason,
  at: $now
})
WITH m, m.id AS id
DETACH DELETE m
RETURN id
