// graphmem export: a page of the project's promotion log, in id order.
MATCH (e:PromotionEvent {project_id: $project_id})
WHERE e.id > $after
WITH e
ORDER BY e.id
LIMIT $limit
OPTIONAL MATCH (e)-[:PROMOTED]->(m:Memory)
RETURN properties(e) AS props, m.id AS promoted
