// graphmem: top memories by importance
// The 25 most important live memories of project $project_id, with the
// relations between them (every edge from one memory to another is a
// relation, whatever its type) and their times as UTC datetimes.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones); $viewer null shows every memory, for administrators.
// Before: :param project_id => 'default'
//         :param viewer => null
MATCH (m:Memory {project_id: $project_id})
WHERE coalesce(m.tier, 'working') <> 'archived'
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
WITH m
ORDER BY m.importance DESC
LIMIT 25
WITH collect(m) AS top
UNWIND top AS m
OPTIONAL MATCH (m)-[r]->(other:Memory)
WHERE other IN top
RETURN m, r, other, m.importance AS importance, m.tier AS tier,
       datetime({epochMillis: toInteger(m.created_at * 1000)}) AS created,
       CASE WHEN m.last_accessed_at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(m.last_accessed_at * 1000)}) END AS last_accessed
