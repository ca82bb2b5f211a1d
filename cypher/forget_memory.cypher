// The only deleting path. Memories this one superseded are current again,
// their validity reopened where this one had closed it.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
OPTIONAL MATCH (m)-[:SUPERSEDES]->(old:Memory)
SET old.superseded_by = null
FOREACH (_ IN CASE WHEN old.valid_to_by = m.id THEN [1] ELSE [] END |
  REMOVE old.valid_to, old.valid_to_by)
WITH DISTINCT m
DETACH DELETE m
RETURN count(*) AS deleted
