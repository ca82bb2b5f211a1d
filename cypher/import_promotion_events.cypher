// graphmem import: the promotion log as exported, linked to the memories it moved.
UNWIND $rows AS row
CREATE (e:PromotionEvent)
SET e = row.props
WITH e, row
OPTIONAL MATCH (m:Memory {id: row.promoted})
WHERE m.project_id = $project_id
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END | CREATE (e)-[:PROMOTED]->(m))
RETURN count(e) AS written
