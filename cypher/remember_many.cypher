// Create memories in one round trip; projects and sessions are created on first use.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
WITH p
UNWIND $session_ids AS sid
MERGE (s:Session {project_id: $project_id, id: sid})
  ON CREATE SET s.state = 'active', s.created_at = $now, s.updated_at = $now,
                s.promotion_enabled = true
MERGE (s)-[:IN_PROJECT]->(p)
WITH count(s) AS sessions
UNWIND $rows AS row
MATCH (s:Session {project_id: $project_id, id: row.session_id})
CREATE (m:Memory)
SET m = row
CREATE (m)-[:IN_SESSION]->(s)
WITH s, count(m) AS created
// Each touched session's working-tier size, for the memory-limit trigger.
MATCH (w:Memory {session_id: s.id})
WHERE w.project_id = $project_id AND w.tier = 'working'
RETURN s.id AS session_id, s.max_items AS max_items, created, count(w) AS working
