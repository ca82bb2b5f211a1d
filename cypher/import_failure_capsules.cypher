// graphmem import: failure capsules as exported, merged by signature within
// the project (a failure is one capsule: one already there keeps its id and
// takes the file's properties), linked to their sessions, context memories
// and lesson. A row naming a session or memory the project does not hold is
// not written; says which rows were written and which of them were new.
UNWIND $rows AS row
CALL {
  WITH row
  UNWIND row.for_sessions AS sid
  MATCH (s:Session {project_id: $project_id, id: sid})
  RETURN collect(s) AS sessions
}
CALL {
  WITH row
  UNWIND row.in_context AS mid
  MATCH (m:Memory {id: mid})
  WHERE m.project_id = $project_id
  RETURN collect(m) AS context
}
OPTIONAL MATCH (l:Memory {id: row.taught})
WHERE l.project_id = $project_id
WITH row, sessions, context, l
WHERE size(sessions) = size(row.for_sessions) AND size(context) = size(row.in_context)
  AND (row.taught IS NULL OR l IS NOT NULL)
OPTIONAL MATCH (old:FailureCapsule {project_id: $project_id, signature: row.props.signature})
WITH row, sessions, context, l, head(collect(old.id)) AS old_id
MERGE (c:FailureCapsule {project_id: $project_id, signature: row.props.signature})
SET c += row.props
SET c.id = coalesce(old_id, row.props.id)
FOREACH (s IN sessions | MERGE (c)-[:FOR_SESSION]->(s))
FOREACH (m IN context | MERGE (c)-[:IN_CONTEXT]->(m))
FOREACH (_ IN CASE WHEN l IS NULL THEN [] ELSE [1] END | MERGE (c)-[:TAUGHT]->(l))
RETURN row.line AS line, old_id IS NULL AS fresh
