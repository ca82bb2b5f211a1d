// graphmem import: relations between memories, each of the types graphmem
// writes (a relationship type cannot be a parameter, so one branch per type).
UNWIND $rows AS row
MATCH (a:Memory {id: row.from_id})
WHERE a.project_id = $project_id
MATCH (b:Memory {id: row.to_id})
WHERE b.project_id = $project_id
FOREACH (_ IN CASE WHEN row.type = 'CONSTRAINS' THEN [1] ELSE [] END |
  CREATE (a)-[r:CONSTRAINS]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'ENABLES' THEN [1] ELSE [] END |
  CREATE (a)-[r:ENABLES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'SUPERSEDES' THEN [1] ELSE [] END |
  CREATE (a)-[r:SUPERSEDES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'RELATED_TO' THEN [1] ELSE [] END |
  CREATE (a)-[r:RELATED_TO]->(b) SET r = row.props)
RETURN count(row) AS written
