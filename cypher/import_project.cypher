// graphmem import: the project node, with the exported properties.
MERGE (p:Project {id: $project_id})
SET p += $props
RETURN p.id AS id
