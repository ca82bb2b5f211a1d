// graphmem import: relations between memories of the project, merged by
// (type, from, to): an existing relation takes the file's properties. Says,
// for each row, whether both ends were found and whether the relation was
// there already. A relationship type cannot be a parameter, so there is one
// branch per type graphmem writes; each (type, from, to) occurs once per call.
UNWIND $rows AS row
OPTIONAL MATCH (a:Memory {id: row.from_id})
WHERE a.project_id = $project_id
OPTIONAL MATCH (b:Memory {id: row.to_id})
WHERE b.project_id = $project_id
OPTIONAL MATCH (a)-[old]->(b)
WHERE type(old) = row.type
WITH row, a, b, head(collect(old)) AS old
WITH row, a, b, old, old IS NULL AND a IS NOT NULL AND b IS NOT NULL AS create
FOREACH (_ IN CASE WHEN old IS NULL THEN [] ELSE [1] END | SET old += row.props)
FOREACH (_ IN CASE WHEN create AND row.type = 'CONSTRAINS' THEN [1] ELSE [] END |
  CREATE (a)-[r:CONSTRAINS]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN create AND row.type = 'ENABLES' THEN [1] ELSE [] END |
  CREATE (a)-[r:ENABLES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN create AND row.type = 'SUPERSEDES' THEN [1] ELSE [] END |
  CREATE (a)-[r:SUPERSEDES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN create AND row.type = 'RELATED_TO' THEN [1] ELSE [] END |
  CREATE (a)-[r:RELATED_TO]->(b) SET r = row.props)
RETURN row.line AS line, a IS NOT NULL AS from_found, b IS NOT NULL AS to_found,
       old IS NOT NULL AS existed
