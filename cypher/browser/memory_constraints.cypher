// graphmem: the constraints on a memory
// The memories that constrain $id directly, or constrain a memory that
// enables it, skipping constraints that something newer superseded; with
// when each constraint was recorded, as a UTC datetime.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones); $viewer null shows every memory, for administrators.
// Before: :param id => '<memory id>'
//         :param viewer => null
MATCH (m:Memory {id: $id})
WHERE $viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer
OPTIONAL MATCH path = (rule:Memory)-[:CONSTRAINS]->(:Memory)-[:ENABLES*0..2]->(m)
WHERE rule.project_id = m.project_id AND rule.superseded_by IS NULL
  AND all(n IN nodes(path)
          WHERE $viewer IS NULL OR coalesce(n.visibility, 'shared') = 'shared' OR n.agent_id = $viewer)
RETURN m, path, rule.content AS constraint,
       CASE WHEN rule.created_at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(rule.created_at * 1000)}) END AS constraint_created
