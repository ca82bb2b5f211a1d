// $changes holds only validated fields; the importance fields come with it.
// A changed text gets its new vector (or loses the stale one) in the same write.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m += $changes
FOREACH (_ IN CASE WHEN $reembed THEN [1] ELSE [] END |
  {{set_vector(m, $embedding)}})
RETURN {{memory_projection(m)}} AS memory
