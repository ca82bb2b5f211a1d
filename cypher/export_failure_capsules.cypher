// graphmem export: a page of the project's failure capsules, in id order, with
// the sessions they were reported in, the memories that were in context and
// the lesson they taught.
MATCH (c:FailureCapsule {project_id: $project_id})
WHERE c.id > $after
WITH c
ORDER BY c.id
LIMIT $limit
OPTIONAL MATCH (c)-[:FOR_SESSION]->(s:Session)
WITH c, collect(s.id) AS for_sessions
OPTIONAL MATCH (c)-[:IN_CONTEXT]->(m:Memory)
WITH c, for_sessions, collect(m.id) AS in_context
OPTIONAL MATCH (c)-[:TAUGHT]->(l:Memory)
RETURN properties(c) AS props, for_sessions, in_context, head(collect(l.id)) AS taught
ORDER BY props.id
