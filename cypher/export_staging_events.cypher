// graphmem export: a page of the project's staging log, in id order.
MATCH (e:StagingEvent {project_id: $project_id})
WHERE e.id > $after
OPTIONAL MATCH (e)-[:CHANGED]->(m:Memory)
WITH e, m
// An event of another agent's private memory is that agent's alone.
WHERE m IS NULL
   OR {{visible(m)}}
WITH e, m
ORDER BY e.id
LIMIT $limit
RETURN properties(e) AS props, m.id AS changed
