// graphmem: supersede chains
// Every chain of SUPERSEDES in project $project_id, from the current memory
// (nothing supersedes it) down to the oldest one it replaced, with the time
// of each replacement as a UTC datetime.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones: a memory it cannot see splits a chain); $viewer null shows
// every memory, for administrators.
// Before: :param project_id => 'default'
//         :param viewer => null
MATCH path = (current:Memory {project_id: $project_id})-[:SUPERSEDES*1..]->(oldest:Memory)
WHERE all(n IN nodes(path)
          WHERE $viewer IS NULL OR coalesce(n.visibility, 'shared') = 'shared' OR n.agent_id = $viewer)
  AND NOT EXISTS {
    MATCH (newer:Memory)-[:SUPERSEDES]->(current)
    WHERE $viewer IS NULL OR coalesce(newer.visibility, 'shared') = 'shared' OR newer.agent_id = $viewer
  }
  AND NOT EXISTS {
    MATCH (oldest)-[:SUPERSEDES]->(older:Memory)
    WHERE $viewer IS NULL OR coalesce(older.visibility, 'shared') = 'shared' OR older.agent_id = $viewer
  }
RETURN path, current.content AS current, oldest.content AS oldest,
       [r IN relationships(path) |
        CASE WHEN r.created_at IS NULL THEN null
             ELSE datetime({epochMillis: toInteger(r.created_at * 1000)}) END] AS superseded_at
LIMIT 100
