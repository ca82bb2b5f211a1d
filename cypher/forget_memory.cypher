// The only deleting path. Memories this one superseded are current again.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
OPTIONAL MATCH (m)-[:SUPERSEDES]->(old:Memory)
SET old.superseded_by = null
WITH DISTINCT m
DETACH DELETE m
RETURN count(*) AS deleted
