// A copy of a memory in another project, saying where it came from: the source
// is only read, never moved or changed. The copy keeps the source's agent,
// visibility, text, type, tags, tier, status and embedding; its use counts
// start again. Logged in the source project as a SharingEvent. Its full-text
// scope words (graphmem/domain/textscope.py) are the target project's, for the
// source's readers: $private_scope if it is private, else $shared_scope.
MATCH (s:Memory {id: $id})
WHERE s.project_id = $project_id
  AND {{visible(s)}}
MERGE (p:Project {id: $to_project_id})
  ON CREATE SET p.created_at = $now
MERGE (sess:Session {project_id: $to_project_id, id: s.session_id})
  ON CREATE SET sess.state = 'active', sess.created_at = $now, sess.updated_at = $now,
                sess.promotion_enabled = true
MERGE (sess)-[:IN_PROJECT]->(p)
// The copy takes its own id in the statement that copies the source's
// properties: holding the source's id even for a moment breaks Neo4j's unique
// constraint on Memory.id.
CREATE (c:Memory)
SET c = s {.*, id: $copy_id}
SET c.project_id = $to_project_id,
    c.text_scope = CASE WHEN s.agent_id IS NOT NULL AND s.visibility = 'private'
                        THEN $private_scope ELSE $shared_scope END,
    c.created_at = $now,
    c.updated_at = $now,
    c.access_count = 0,
    c.retrieval_count = 0,
    c.feedback = 0,
    c.feedback_count = 0,
    c.copied_from = s.id,
    c.copied_from_project = $project_id,
    c.copied_at = $now,
    c.copied_by = $by
// Ids of the source project mean nothing in the target.
REMOVE c.superseded_by, c.merged_into, c.conflicts_with, c.conflict_reason, c.valid_to_by,
       c.review_change, c.review_cause, c.review_by, c.review_path, c.review_marked_at,
       c.last_accessed_at, c.last_retrieved_at
CREATE (c)-[:IN_SESSION]->(sess)
CREATE (e:SharingEvent {
  id: $event_id,
  project_id: $project_id,
  memory_id: s.id,
  kind: 'copied',
  by: $by,
  to_project_id: $to_project_id,
  copy_id: $copy_id,
  at: $now
})
RETURN {{memory_projection(c)}} AS memory,
       e {.id, .memory_id, .kind, .by, .from_visibility, .to_visibility, .to_project_id, .copy_id, .at} AS event
