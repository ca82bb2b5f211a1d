MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id AND m.tier = 'working'
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
RETURN count(m) AS working
