// Safe fix: an archived memory without archived_at gets its last write time,
// the best evidence of when it was archived. One match over the list, not one
// per id (see get_memories.cypher).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id AND m.tier = 'archived' AND m.archived_at IS NULL
SET m.archived_at = coalesce(m.updated_at, m.created_at, $now)
RETURN m.id AS id
