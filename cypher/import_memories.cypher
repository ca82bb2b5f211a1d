// graphmem import: memories as exported, embedding included, linked to the
// session they were in (a memory that was in none stays in none).
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props,
    m.embedding = row.embedding
WITH m, row
OPTIONAL MATCH (s:Session {project_id: $project_id, id: row.in_session})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | CREATE (m)-[:IN_SESSION]->(s))
RETURN count(m) AS written
