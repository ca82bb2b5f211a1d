// graphmem export: a page of the project's sessions, in id order, with the
// project each is linked to (IN_PROJECT), so import rebuilds the links as they were.
MATCH (s:Session {project_id: $project_id})
WHERE s.id > $after
WITH s
ORDER BY s.id
LIMIT $limit
OPTIONAL MATCH (s)-[:IN_PROJECT]->(p:Project)
RETURN properties(s) AS props, p.id AS in_project
