// graphmem export: a page of the project's failure capsules, in id order, with
// the sessions they were reported in, the memories that were in context and
// the lesson they taught. A viewer gets the capsules it may read (as
// failureCapsules: the capsule and its lesson shared, or private to it) and of
// their context only the memories it may read.
MATCH (c:FailureCapsule {project_id: $project_id})
WHERE c.id > $after
  AND {{visible(c)}}
OPTIONAL MATCH (c)-[:TAUGHT]->(l:Memory)
WITH c, l
WHERE l IS NULL
   OR {{visible(l)}}
WITH c, l
ORDER BY c.id
LIMIT $limit
OPTIONAL MATCH (c)-[:FOR_SESSION]->(s:Session)
WITH c, l, collect(s.id) AS for_sessions
OPTIONAL MATCH (c)-[:IN_CONTEXT]->(m:Memory)
WHERE {{visible(m)}}
WITH c, l, for_sessions, collect(m.id) AS in_context
RETURN properties(c) AS props, for_sessions, in_context, l.id AS taught
ORDER BY props.id
