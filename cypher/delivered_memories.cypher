// How each memory a delivery gave stands now: gone (no row), readable by the
// acting agent (its fields), or there but not the reader's to read.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.project_id = $project_id
RETURN id,
       {{visible(m)}} AS readable,
       CASE WHEN {{visible(m)}} THEN {{memory_projection(m)}} ELSE null END AS memory
