MATCH (m:Memory {project_id: $project_id})
RETURN coalesce(max(m.access_count), 0) AS max_access_count
