// Safe fix: an archived memory without archived_at gets its last write time,
// the best evidence of when it was archived.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id AND m.tier = 'archived' AND m.archived_at IS NULL
SET m.archived_at = coalesce(m.updated_at, m.created_at, $now)
RETURN m.id AS id
