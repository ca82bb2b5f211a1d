// Who sees a memory, set to $to by its own agent (or by a caller bound to no
// agent) and logged as a SharingEvent. A memory without an agent is always
// shared. Its full-text scope words become $text_scope, the project's and the
// new readers' (graphmem/domain/textscope.py). Read again under the memory's write lock: of two concurrent
// changes, the second finds it changed and logs nothing.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id AND m.agent_id IS NOT NULL
  AND ($viewer IS NULL OR m.agent_id = $viewer)
  AND coalesce(m.visibility, 'shared') <> $to
SET m._lock = true
REMOVE m._lock
WITH m
WHERE coalesce(m.visibility, 'shared') <> $to
WITH m, coalesce(m.visibility, 'shared') AS before
SET m.visibility = $to, m.updated_at = $now, m.text_scope = $text_scope
CREATE (e:SharingEvent {
  id: $event_id,
  project_id: $project_id,
  memory_id: m.id,
  kind: $kind,
  by: $by,
  from_visibility: before,
  to_visibility: $to,
  at: $now
})
RETURN {{memory_projection(m)}} AS memory,
       e {.id, .memory_id, .kind, .by, .from_visibility, .to_visibility, .to_project_id, .copy_id, .at} AS event
