// graphmem: memories needing review and the path to each one's cause
// Each memory marked as needing review (graphmem.grass draws it in magenta:
// the :NeedsReview label), newest mark first, with the memory whose change
// marked it and the ENABLES and CONSTRAINS relations leading from that memory
// to it, in the order its review_path names them; with the change, the cause's
// content and when the mark was made, as a UTC datetime.
// Visibility: as agent $viewer sees the project (its own memories and the
// shared ones); $viewer null shows every memory, for administrators.
// Before: :param project_id => 'default'
//         :param viewer => null
MATCH (m:Memory:NeedsReview {project_id: $project_id})
WHERE $viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer
OPTIONAL MATCH path = (cause:Memory {id: m.review_cause})-[:ENABLES|CONSTRAINS*1..10]->(m)
WHERE [r IN relationships(path) | type(r)] = m.review_path
  AND all(n IN nodes(path)
          WHERE $viewer IS NULL OR coalesce(n.visibility, 'shared') = 'shared' OR n.agent_id = $viewer)
RETURN m, path, m.review_change AS change, cause.content AS cause,
       CASE WHEN m.review_marked_at IS NULL THEN null
            ELSE datetime({epochMillis: toInteger(m.review_marked_at * 1000)}) END AS marked
ORDER BY m.review_marked_at DESC, m.id
LIMIT 50
