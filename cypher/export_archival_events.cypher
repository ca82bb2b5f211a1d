// graphmem export: a page of the project's archival log (moves to and from the
// archive), in id order.
MATCH (e:ArchivalEvent {project_id: $project_id})
WHERE e.id > $after
WITH e
ORDER BY e.id
LIMIT $limit
OPTIONAL MATCH (e)-[:MOVED]->(m:Memory)
RETURN properties(e) AS props, m.id AS moved
