// graphmem: candidates awaiting review
// Live candidates of project $project_id, most evidence first (occurrences
// plus net feedback), with the staging events that merged duplicates into them.
// Before: :param project_id => 'default'
MATCH (m:Memory {project_id: $project_id})
WHERE m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
WITH m, coalesce(m.occurrence_count, 1) + coalesce(m.feedback, 0) AS evidence
ORDER BY evidence DESC, m.created_at ASC
LIMIT 50
OPTIONAL MATCH (event:StagingEvent)-[changed:CHANGED]->(m)
RETURN m, evidence, event, changed
