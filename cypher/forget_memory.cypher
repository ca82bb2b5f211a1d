// The only deleting path. Memories this one superseded are current again.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
OPTIONAL MATCH (m)-[:SUPERSEDES]->(old:Memory)
SET old.superseded_by = null
WITH DISTINCT m
DETACH DELETE m
RETURN count(*) AS deleted
