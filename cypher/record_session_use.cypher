// A session other than a memory's own used it (wrote it again or was served it):
// evidence for episodic -> semantic. The list is read again under the memory's
// write lock, so two concurrent notes of one session list it once.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.project_id = $project_id
  AND m.session_id <> $session_id
  AND NOT $session_id IN coalesce(m.used_in_sessions, [])
SET m._lock = true
REMOVE m._lock
WITH m
WHERE NOT $session_id IN coalesce(m.used_in_sessions, [])
SET m.used_in_sessions = coalesce(m.used_in_sessions, []) + [$session_id]
RETURN m.id AS id
