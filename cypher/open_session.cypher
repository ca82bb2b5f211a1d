// Opening an existing session reactivates it; its memories are untouched.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
MERGE (s:Session {project_id: $project_id, id: $session_id})
  ON CREATE SET s.created_at = $now, s.promotion_enabled = true
SET s.state = 'active', s.updated_at = $now,
    s.name = coalesce($name, s.name),
    s.max_items = coalesce($max_items, s.max_items)
MERGE (s)-[:IN_PROJECT]->(p)
RETURN s {.id, .project_id, .state, .name, .created_at, .updated_at, .promotion_enabled,
     .promotion_interval_seconds, .max_items} AS session
