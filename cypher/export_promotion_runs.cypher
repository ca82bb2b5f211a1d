// graphmem export: a page of the project's promotion runs, in id order.
MATCH (r:PromotionRun {project_id: $project_id})
WHERE r.id > $after
WITH r
ORDER BY r.id
LIMIT $limit
OPTIONAL MATCH (r)-[:FOR_SESSION]->(s:Session)
RETURN properties(r) AS props, s.id AS for_session
