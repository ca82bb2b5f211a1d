// graphmem: supersede chains
// Every chain of SUPERSEDES in project $project_id, from the current memory
// (nothing supersedes it) down to the oldest one it replaced.
// Before: :param project_id => 'default'
MATCH path = (current:Memory {project_id: $project_id})-[:SUPERSEDES*1..]->(oldest:Memory)
WHERE NOT EXISTS { MATCH (:Memory)-[:SUPERSEDES]->(current) }
  AND NOT EXISTS { MATCH (oldest)-[:SUPERSEDES]->(:Memory) }
RETURN path
LIMIT 100
