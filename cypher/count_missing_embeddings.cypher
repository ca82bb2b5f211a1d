MATCH (m:Memory)
WHERE ($project_id IS NULL OR m.project_id = $project_id)
  AND m.embedding IS NULL
RETURN count(m) AS missing
