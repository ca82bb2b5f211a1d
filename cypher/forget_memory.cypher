// The only deleting path. Memories this one superseded are current again,
// their validity reopened where this one had closed it.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
OPTIONAL MATCH (m)-[:SUPERSEDES]->(old:Memory)
SET old.superseded_by = null
FOREACH (_ IN CASE WHEN old.valid_to_by = m.id THEN [1] ELSE [] END |
  REMOVE old.valid_to, old.valid_to_by)
WITH DISTINCT m
DETACH DELETE m
RETURN count(*) AS deleted
