// graphmem import: memories as exported, linked to the session they were in
// (a memory that was in none stays in none); the embedding becomes the
// float32 vector type FalkorDB's vector index reads.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props,
    m.embedding = CASE WHEN row.embedding IS NULL THEN NULL ELSE vecf32(row.embedding) END
WITH m, row
OPTIONAL MATCH (s:Session {project_id: $project_id, id: row.in_session})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | CREATE (m)-[:IN_SESSION]->(s))
RETURN count(m) AS written
