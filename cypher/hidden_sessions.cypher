// The sessions of $ids that exist but that agent $viewer may not see: each holds
// memories or failure capsules, and none of them is one $viewer may read (shared,
// or private to it; a capsule only with its lesson). For that agent such a session
// does not exist. An empty session is every agent's; a caller acting as no agent
// ($viewer null) sees every session. One match over the list, not one per id
// (see get_memories.cypher).
MATCH (s:Session)
WHERE s.project_id = $project_id
  AND s.id IN $ids
CALL {
  WITH s
  OPTIONAL MATCH (m:Memory {session_id: s.id})
  WHERE m.project_id = $project_id
    AND (coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
  RETURN m.id AS readable
  LIMIT 1
}
CALL {
  WITH s
  OPTIONAL MATCH (m:Memory {session_id: s.id})
  WHERE m.project_id = $project_id
  RETURN m.id AS held
  LIMIT 1
}
CALL {
  WITH s
  OPTIONAL MATCH (c:FailureCapsule)-[:FOR_SESSION]->(s)
  OPTIONAL MATCH (c)-[:TAUGHT]->(l:Memory)
  RETURN count(c) AS reports,
         count(CASE WHEN c IS NOT NULL
                     AND (coalesce(c.visibility, 'shared') = 'shared' OR c.agent_id = $viewer)
                     AND (l IS NULL OR coalesce(l.visibility, 'shared') = 'shared'
                          OR l.agent_id = $viewer)
                    THEN 1 END) AS readable_reports
}
WITH s, readable, held, reports, readable_reports
WHERE $viewer IS NOT NULL AND readable IS NULL AND readable_reports = 0
  AND (held IS NOT NULL OR reports > 0)
RETURN s.id AS id
