// The sessions of a project, for a what-if plan of promotion in each.
MATCH (s:Session)
WHERE s.project_id = $project_id
RETURN s.id AS id
ORDER BY id
