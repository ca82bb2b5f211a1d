// graphmem export: a page of the project's archival log (moves to and from the
// archive), in id order.
MATCH (e:ArchivalEvent {project_id: $project_id})
WHERE e.id > $after
OPTIONAL MATCH (e)-[:MOVED]->(m:Memory)
WITH e, m
// An event of another agent's private memory is that agent's alone.
WHERE m IS NULL
   OR {{visible(m)}}
WITH e, m
ORDER BY e.id
LIMIT $limit
RETURN properties(e) AS props, m.id AS moved
