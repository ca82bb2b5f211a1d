// graphmem: candidates awaiting review
// Live candidates of project $project_id, most evidence first (occurrences
// plus net feedback), with the staging events that merged duplicates into
// them and the times as UTC datetimes.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones); $viewer null shows every memory, for administrators.
// Before: :param project_id => 'default'
//         :param viewer => null
MATCH (m:Memory {project_id: $project_id})
WHERE m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
WITH m, coalesce(m.occurrence_count, 1) + coalesce(m.feedback, 0) AS evidence
ORDER BY evidence DESC, m.created_at ASC
LIMIT 50
OPTIONAL MATCH (event:StagingEvent)-[changed:CHANGED]->(m)
RETURN m, evidence, event, changed,
       datetime({epochMillis: toInteger(m.created_at * 1000)}) AS created,
       CASE WHEN event.at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(event.at * 1000)}) END AS merged_at
