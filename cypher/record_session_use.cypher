// A session other than a memory's own used it (wrote it again or was served it):
// evidence for episodic -> semantic. The list is read again under the memory's
// write lock, so two concurrent notes of one session list it once. One match
// over the list, not one per id (see get_memories.cypher).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND m.session_id <> $session_id
  AND NOT $session_id IN coalesce(m.used_in_sessions, [])
SET m._lock = true
REMOVE m._lock
WITH m
WHERE NOT $session_id IN coalesce(m.used_in_sessions, [])
SET m.used_in_sessions = coalesce(m.used_in_sessions, []) + [$session_id]
RETURN m.id AS id
