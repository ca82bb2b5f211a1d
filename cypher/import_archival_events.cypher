// graphmem import: the archival log as exported, merged by id within the
// project (found through the indexed memory_id), new events linked to the
// memory they changed. A row naming a memory the project does not hold is not
// written; says which rows were written and which of them were new. Each id
// occurs once per call.
UNWIND $rows AS row
OPTIONAL MATCH (m:Memory {id: row.moved})
WHERE m.project_id = $project_id
WITH row, m
WHERE row.moved IS NULL OR m IS NOT NULL
OPTIONAL MATCH (old:ArchivalEvent {memory_id: row.props.memory_id})
WHERE old.project_id = $project_id AND old.id = row.props.id
WITH row, m, head(collect(old)) AS old
FOREACH (_ IN CASE WHEN old IS NULL THEN [] ELSE [1] END | SET old += row.props)
FOREACH (_ IN CASE WHEN old IS NULL AND m IS NOT NULL THEN [1] ELSE [] END |
  CREATE (e:ArchivalEvent)-[:MOVED]->(m) SET e = row.props)
FOREACH (_ IN CASE WHEN old IS NULL AND m IS NULL THEN [1] ELSE [] END |
  CREATE (e:ArchivalEvent) SET e = row.props)
RETURN row.line AS line, old IS NULL AS fresh
