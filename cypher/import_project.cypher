// graphmem import: the project node, merged with the exported properties;
// says whether the project is new.
OPTIONAL MATCH (old:Project {id: $project_id})
WITH count(old) = 0 AS fresh
MERGE (p:Project {id: $project_id})
SET p += $props
RETURN fresh
