// graphmem export: a page of the project's memories, in id order, every
// property (the embedding included) and the session each is linked to.
MATCH (m:Memory {project_id: $project_id})
WHERE m.id > $after
  AND {{visible(m)}}
WITH m
ORDER BY m.id
LIMIT $limit
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN properties(m) AS props, s.id AS in_session
