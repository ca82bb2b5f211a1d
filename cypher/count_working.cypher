MATCH (m:Memory {session_id: $session_id})
WHERE m.project_id = $project_id AND m.tier = 'working'
  AND {{visible(m)}}
RETURN count(m) AS working
