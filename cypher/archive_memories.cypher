// Conditional on the tier each memory was seen in, like promotion.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.project_id = $project_id AND m.tier = item.tier
SET m.archived_from = m.tier,
    m.tier = 'archived',
    m.archived_at = $now,
    m.archive_reason = item.reason,
    m.importance = item.score,
    m.updated_at = $now
RETURN m.id AS id
