// Safe fix: rewrite importance recomputed at $now. Skipped when an access or
// feedback moved the memory since the snapshot (that writer rescored it); the
// counters are compared again under the memory's write lock.
// updated_at records when the score was written, which the staleness check
// reads as the latest time the score may have been computed.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id
  AND coalesce(m.access_count, 0) = item.access_count
  AND coalesce(m.feedback_count, 0) = item.feedback_count
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE coalesce(m.access_count, 0) = item.access_count
  AND coalesce(m.feedback_count, 0) = item.feedback_count
SET m += item.fields,
    m.updated_at = $now
RETURN m.id AS id
