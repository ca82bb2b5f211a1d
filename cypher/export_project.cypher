// graphmem export: the project node and whether anything is in it yet
// (import refuses a project that already holds sessions or memories).
OPTIONAL MATCH (p:Project {id: $project_id})
OPTIONAL MATCH (s:Session {project_id: $project_id})
WITH p, count(s) AS sessions
OPTIONAL MATCH (m:Memory {project_id: $project_id})
RETURN properties(p) AS props, sessions, count(m) AS memories
