// The sessions of $ids (callers key them by id). One match over the list, not
// one per id (see get_memories.cypher).
MATCH (s:Session)
WHERE s.project_id = $project_id
  AND s.id IN $ids
RETURN s {.id, .project_id, .state, .name, .created_at, .updated_at, .promotion_enabled,
     .promotion_interval_seconds, .max_items} AS session
