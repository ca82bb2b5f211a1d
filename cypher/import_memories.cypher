// graphmem import: memories as exported, merged by id (import has checked
// that no other project holds these ids; an existing memory takes the file's
// properties and embedding), linked to the session the file names and to no
// other (a memory that was in none stays in none). A row naming a session
// the project does not hold is not written; the lines written are returned.
UNWIND $rows AS row
OPTIONAL MATCH (s:Session {project_id: $project_id, id: row.in_session})
WITH row, s
WHERE row.in_session IS NULL OR s IS NOT NULL
MERGE (m:Memory {id: row.props.id})
SET m += row.props
{{set_vector(m, row.embedding)}}
WITH m, row, s
OPTIONAL MATCH (m)-[old:IN_SESSION]->(:Session)
DELETE old
WITH DISTINCT m, row, s
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (m)-[:IN_SESSION]->(s))
RETURN collect(row.line) AS written
