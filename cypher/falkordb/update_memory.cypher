// $changes holds only validated fields; the importance fields come with it.
// A changed text gets its new vector (or loses the stale one) in the same
// write, as the float32 vector type the index reads; the old vector is removed
// first, since FalkorDB 4.16 can leave a vector unchanged when SET writes over it.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m += $changes
FOREACH (_ IN CASE WHEN $reembed THEN [1] ELSE [] END |
  REMOVE m.embedding)
FOREACH (_ IN CASE WHEN $reembed AND $embedding IS NOT NULL THEN [1] ELSE [] END |
  SET m.embedding = vecf32($embedding))
RETURN {{memory_projection(m)}} AS memory
