// One page of a project's memories for the consistency evaluator, in id order
// after $after (keyset pagination over the indexed id: no SKIP, so every page
// costs the same). Only the properties the checks and metrics read come back;
// never the content or the embedding. A memory linked to several sessions
// comes back once per link.
MATCH (m:Memory)
WHERE m.project_id = $project_id AND m.id > $after
WITH m
ORDER BY m.id
LIMIT $page
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN m.id AS id, m.session_id AS session_id, m.memory_type AS memory_type, m.tier AS tier,
       m.status AS status, m.confidence AS confidence, m.importance AS importance,
       m.access_count AS access_count, m.feedback AS feedback, m.feedback_count AS feedback_count,
       m.self_assessment AS self_assessment, m.suggested_by AS suggested_by, m.pinned AS pinned,
       m.created_at AS created_at, m.occurred_at AS occurred_at, m.updated_at AS updated_at,
       m.last_accessed_at AS last_accessed_at, m.promoted_at AS promoted_at,
       m.archived_at AS archived_at, m.archived_from AS archived_from,
       m.superseded_by AS superseded_by, m.merged_into AS merged_into,
       m.source AS source, m.archive_reason AS archive_reason,
       m.embedding IS NOT NULL AS has_embedding,
       s.id AS linked_session, s.project_id AS linked_project
ORDER BY id
