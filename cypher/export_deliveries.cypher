// graphmem export: a page of the project's deliveries (knowledgeContext answers
// on record), in id order. An agent exports only the deliveries answered as it.
MATCH (d:Delivery)
WHERE d.project_id = $project_id
  AND d.id > $after
  AND ($viewer IS NULL OR d.agent_id = $viewer)
RETURN properties(d) AS props
ORDER BY props.id
LIMIT $limit
