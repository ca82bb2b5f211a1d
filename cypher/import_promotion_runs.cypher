// graphmem import: promotion runs as exported, merged by id within the
// project (an existing run takes the file's properties), new ones linked to
// their session. A row naming a session the project does not hold is not
// written; says which rows were written and which of them were new. Each id
// occurs once per call.
UNWIND $rows AS row
OPTIONAL MATCH (s:Session {project_id: $project_id, id: row.for_session})
WITH row, s
WHERE row.for_session IS NULL OR s IS NOT NULL
OPTIONAL MATCH (old:PromotionRun {project_id: $project_id, id: row.props.id})
WITH row, s, head(collect(old)) AS old
FOREACH (_ IN CASE WHEN old IS NULL THEN [] ELSE [1] END | SET old += row.props)
FOREACH (_ IN CASE WHEN old IS NULL AND s IS NOT NULL THEN [1] ELSE [] END |
  CREATE (r:PromotionRun)-[:FOR_SESSION]->(s) SET r = row.props)
FOREACH (_ IN CASE WHEN old IS NULL AND s IS NULL THEN [1] ELSE [] END |
  CREATE (r:PromotionRun) SET r = row.props)
RETURN row.line AS line, old IS NULL AS fresh
