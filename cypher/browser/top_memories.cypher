// graphmem: top memories by importance
// The 25 most important live memories of project $project_id, with the
// relations between them (every edge from one memory to another is a
// relation, whatever its type).
// Before: :param project_id => 'default'
MATCH (m:Memory {project_id: $project_id})
WHERE coalesce(m.tier, 'working') <> 'archived'
WITH m
ORDER BY m.importance DESC
LIMIT 25
WITH collect(m) AS top
UNWIND top AS m
OPTIONAL MATCH (m)-[r]->(other:Memory)
WHERE other IN top
RETURN m, r, other
