// A project's sessions, in id order after $after, and whether each is linked
// to its project node (a session outside its project orphans its memories).
MATCH (s:Session)
WHERE s.project_id = $project_id AND s.id > $after
WITH s
ORDER BY s.id
LIMIT $page
OPTIONAL MATCH (s)-[:IN_PROJECT]->(p:Project)
WHERE p.id = $project_id
RETURN s.id AS id, s.state AS state, s.promotion_enabled AS promotion_enabled,
       s.promotion_interval_seconds AS promotion_interval_seconds,
       count(p) > 0 AS in_project
ORDER BY id
