// graphmem export: a page of the project's staging log, in id order.
MATCH (e:StagingEvent {project_id: $project_id})
WHERE e.id > $after
WITH e
ORDER BY e.id
LIMIT $limit
OPTIONAL MATCH (e)-[:CHANGED]->(m:Memory)
RETURN properties(e) AS props, m.id AS changed
