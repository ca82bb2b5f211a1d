// graphmem export: a page of the project's failure capsules, in id order, with
// the sessions they were reported in, the memories that were in context and
// the lesson they taught. A viewer gets the capsules it may read (as
// failureCapsules: the capsule and its lesson shared, or private to it) and of
// their context only the memories it may read.
MATCH (c:FailureCapsule {project_id: $project_id})
WHERE c.id > $after
  AND ($viewer IS NULL OR coalesce(c.visibility, 'shared') = 'shared' OR c.agent_id = $viewer)
OPTIONAL MATCH (c)-[:TAUGHT]->(l:Memory)
WITH c, l
WHERE l IS NULL
   OR ($viewer IS NULL OR coalesce(l.visibility, 'shared') = 'shared' OR l.agent_id = $viewer)
WITH c, l
ORDER BY c.id
LIMIT $limit
OPTIONAL MATCH (c)-[:FOR_SESSION]->(s:Session)
WITH c, l, collect(s.id) AS for_sessions
OPTIONAL MATCH (c)-[:IN_CONTEXT]->(m:Memory)
WHERE ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
WITH c, l, for_sessions, collect(m.id) AS in_context
RETURN properties(c) AS props, for_sessions, in_context, l.id AS taught
ORDER BY props.id
