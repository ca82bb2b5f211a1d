// Store (or, with a null embedding, remove) each memory's vector.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.project_id = row.project_id
{{set_vector(m, row.embedding)}}
RETURN count(m) AS written
