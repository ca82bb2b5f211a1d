// graphmem export: the project node and how many sessions and memories (those
// the viewer may read) it holds.
OPTIONAL MATCH (p:Project {id: $project_id})
OPTIONAL MATCH (s:Session {project_id: $project_id})
WITH p, count(s) AS sessions
OPTIONAL MATCH (m:Memory {project_id: $project_id})
WHERE {{visible(m)}}
RETURN properties(p) AS props, sessions, count(m) AS memories
