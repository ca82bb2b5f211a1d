// graphmem: a memory's neighbourhood
// The memory $id and every memory within two relations of it, either way:
// what constrains or enables it, what it relates to, what it replaced.
// Every edge between two memories is a relation, whatever its type; a path
// through a session is not. Times are shown as UTC datetimes.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones); $viewer null shows every memory, for administrators.
// Before: :param id => '<memory id>'
//         :param viewer => null
MATCH (m:Memory {id: $id})
WHERE $viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer
OPTIONAL MATCH path = (m)-[*1..2]-(other:Memory)
WHERE other.project_id = m.project_id
  AND all(n IN nodes(path) WHERE n:Memory
      AND ($viewer IS NULL OR coalesce(n.visibility, 'shared') = 'shared' OR n.agent_id = $viewer))
RETURN m, path, other.content AS related,
       [r IN relationships(path) | type(r)] AS via,
       CASE WHEN other.created_at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(other.created_at * 1000)}) END AS related_created
LIMIT 200
