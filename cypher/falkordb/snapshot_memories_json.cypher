// snapshot_memories and snapshot_relations in one query, one JSON text per
// memory: FalkorDB's client parses every returned value in Python, so one
// value per memory instead of 24, plus one per relation, is most of what a
// snapshot costs. `in_session` is the memory's session in this project (or
// null); `out` holds its outgoing relations as type $sep target id, with
// $sep and the target's project appended when that is another project.
// toJSON does not escape quotes or backslashes inside strings, so `clean`
// says whether any string holds one; it comes last, where no string value
// can fake it, and an unclean page is read again the column by column way.
MATCH (m:Memory)
WHERE m.project_id = $project_id AND m.id > $after
WITH m
ORDER BY m.id
LIMIT $page
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
WITH m, head(collect(CASE WHEN s.project_id = $project_id THEN s.id END)) AS in_session,
     collect(s.id) + collect(s.project_id) AS session_strings
OPTIONAL MATCH (m)-[r]->(b:Memory)
WITH m, in_session, session_strings,
     collect(type(r) + $sep + b.id
             + CASE WHEN b.project_id = $project_id THEN ''
                    ELSE $sep + coalesce(b.project_id, '') END) AS out
RETURN toJSON(m {.id, .session_id, .memory_type, .tier, .status, .confidence, .importance,
                 .access_count, .feedback, .feedback_count, .self_assessment, .suggested_by,
                 .pinned, .created_at, .occurred_at, .updated_at, .last_accessed_at, .promoted_at,
                 .archived_at, .archived_from, .superseded_by, .merged_into, .source, .archive_reason,
                 has_embedding: m.embedding IS NOT NULL,
                 in_session: in_session,
                 out: out,
                 clean: none(v IN [m.id, m.session_id, m.memory_type, m.tier, m.status,
                                   m.self_assessment, m.suggested_by, m.archived_from,
                                   m.superseded_by, m.merged_into, m.source, m.archive_reason]
                                  + session_strings + out
                             WHERE toString(coalesce(v, '')) CONTAINS '"'
                                OR toString(coalesce(v, '')) CONTAINS '\\')}) AS memory
