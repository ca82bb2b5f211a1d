// graphmem import: deliveries as exported, merged by id within the project. A
// delivery names its memories by id only, so one naming a memory the file does
// not hold (forgotten before the export) is written as it was.
UNWIND $rows AS row
OPTIONAL MATCH (old:Delivery {id: row.props.id})
WHERE old.project_id = $project_id
WITH row, count(old) = 0 AS fresh
MERGE (d:Delivery {project_id: $project_id, id: row.props.id})
SET d += row.props
RETURN row.line AS line, fresh
