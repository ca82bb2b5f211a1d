// graphmem import: sessions as exported, merged by id within the project
// (an existing session takes the file's properties), linked to the project
// where they were linked in the export; says which were new. Each id occurs
// once per call.
UNWIND $rows AS row
OPTIONAL MATCH (old:Session {project_id: $project_id, id: row.props.id})
WITH row, old IS NULL AS fresh
MERGE (s:Session {project_id: $project_id, id: row.props.id})
SET s += row.props
WITH s, row, fresh
FOREACH (_ IN CASE WHEN row.linked THEN [1] ELSE [] END |
  MERGE (p:Project {id: $project_id})
  MERGE (s)-[:IN_PROJECT]->(p))
RETURN row.line AS line, fresh
