// graphmem export (Sky, GraphML, Cypher script): a page of the project's
// memories in id order, every property but the embedding (returned as null).
MATCH (m:Memory {project_id: $project_id})
WHERE m.id > $after
  AND {{visible(m)}}
WITH m
ORDER BY m.id
LIMIT $limit
RETURN m {.*, embedding: null} AS props
