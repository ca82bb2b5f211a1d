// Memories whose validTo passed and whose dependents were not yet told: each is
// claimed here (expiry_marked_at, read again under the memory's write lock), so
// a later or concurrent sweep does not mark them again.
MATCH (m:Memory)
WHERE m.project_id = $project_id
  AND m.valid_to IS NOT NULL
  AND m.valid_to <= $now
  AND m.valid_to_by IS NULL
  AND m.expiry_marked_at IS NULL
WITH m
LIMIT $limit
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.valid_to IS NOT NULL AND m.valid_to <= $now AND m.valid_to_by IS NULL
  AND m.expiry_marked_at IS NULL
SET m.expiry_marked_at = $now
RETURN m.id AS id
