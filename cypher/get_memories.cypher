UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
RETURN {{memory_projection(m)}} AS memory
