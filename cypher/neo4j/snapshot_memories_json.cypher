// snapshot_memories as one value per memory. The JSON text exists for
// FalkorDB's client, which parses every returned value in Python; Neo4j has
// no toJSON and its driver needs no such saving, so the evaluator reads
// snapshot_memories there. This variant keeps the statement set complete:
// the same fields as one map per memory, always clean (nothing to escape).
MATCH (m:Memory)
WHERE m.project_id = $project_id AND m.id > $after
WITH m
ORDER BY m.id
LIMIT $page
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN m {.id, .session_id, .memory_type, .tier, .status, .confidence, .importance,
          .access_count, .feedback, .feedback_count, .self_assessment, .suggested_by,
          .pinned, .created_at, .occurred_at, .updated_at, .last_accessed_at, .promoted_at,
          .archived_at, .archived_from, .superseded_by, .merged_into, .source, .archive_reason,
          has_embedding: m.embedding IS NOT NULL,
          linked_session: s.id, linked_project: s.project_id,
          clean: true} AS memory
ORDER BY m.id
