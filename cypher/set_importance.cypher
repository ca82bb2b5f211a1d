// Written after a counter moved; skipped when a later writer moved it again,
// so a slow writer never overwrites a fresher score with a stale one. The
// counters are compared again under the memory's write lock.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND coalesce(m.access_count, 0) = $access_count
  AND coalesce(m.feedback_count, 0) = $feedback_count
SET m._lock = true
REMOVE m._lock
WITH m
WHERE coalesce(m.access_count, 0) = $access_count
  AND coalesce(m.feedback_count, 0) = $feedback_count
SET m += $fields
RETURN m.id AS id
