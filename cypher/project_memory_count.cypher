// How many memories a project holds, every tier and status: what the writer
// reads to choose how it looks for a new memory's near duplicates.
MATCH (m:Memory {project_id: $project_id})
RETURN count(m) AS memories
