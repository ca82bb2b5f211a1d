// graphmem export: a page of the project's promotion log, in id order.
MATCH (e:PromotionEvent {project_id: $project_id})
WHERE e.id > $after
OPTIONAL MATCH (e)-[:PROMOTED]->(m:Memory)
WITH e, m
// An event of another agent's private memory is that agent's alone.
WHERE m IS NULL
   OR {{visible(m)}}
WITH e, m
ORDER BY e.id
LIMIT $limit
RETURN properties(e) AS props, m.id AS promoted
