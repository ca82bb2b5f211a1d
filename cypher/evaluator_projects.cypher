// Every project the graph holds memories or sessions for, for "evaluate all
// projects": a project's memories can outlive its :Project node.
MATCH (p:Project)
RETURN p.id AS project_id
UNION
MATCH (s:Session)
RETURN DISTINCT s.project_id AS project_id
UNION
MATCH (m:Memory)
RETURN DISTINCT m.project_id AS project_id
