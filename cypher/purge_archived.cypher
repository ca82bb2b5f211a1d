// Delete expired archived memories (already exported), each purge logged as an
// event. Conditional on the memory still being archived and expired, so a memory
// restored since it was read is kept.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND m.tier = 'archived' AND m.archived_at < $expired_before
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
