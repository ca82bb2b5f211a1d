// graphmem import: the staging log as exported, linked to the memories it changed.
UNWIND $rows AS row
CREATE (e:StagingEvent)
SET e = row.props
WITH e, row
OPTIONAL MATCH (m:Memory {id: row.changed})
WHERE m.project_id = $project_id
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END | CREATE (e)-[:CHANGED]->(m))
RETURN count(e) AS written
