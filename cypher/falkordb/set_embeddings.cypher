// Store (or, with a null embedding, remove) each memory's vector, as the
// float32 vector type the vector index reads. The old vector is removed
// first: FalkorDB 4.16 can leave a vector unchanged when SET writes over it.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.project_id = row.project_id
REMOVE m.embedding
FOREACH (_ IN CASE WHEN row.embedding IS NULL THEN [] ELSE [1] END |
  SET m.embedding = vecf32(row.embedding))
RETURN count(m) AS written
