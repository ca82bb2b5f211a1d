UNWIND $ids AS wanted
MATCH (s:Session {project_id: $project_id, id: wanted})
RETURN s {.id, .project_id, .state, .name, .created_at, .updated_at, .promotion_enabled,
     .promotion_interval_seconds, .max_items} AS session
