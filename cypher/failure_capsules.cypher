// A project's failure capsules, most recently seen first, optionally only one
// session's, one capsule ($id), or those that taught given lessons ($lesson_ids).
// A capsule is read by those who may read it and its lesson: both shared, or
// private to the caller's agent, or the caller acts as no agent ($viewer null).
// A capsule stored before capsules kept visibility is shared.
MATCH (c:FailureCapsule {project_id: $project_id})
WHERE ($id IS NULL OR c.id = $id)
  AND ($lesson_ids IS NULL OR c.lesson_id IN $lesson_ids)
  AND ($session_id IS NULL OR (c)-[:FOR_SESSION]->(:Session {id: $session_id}))
  AND {{visible(c)}}
// The lesson as linked now: a lesson someone forgot is gone from the capsule too.
OPTIONAL MATCH (c)-[:TAUGHT]->(lm:Memory)
WITH c, lm
WHERE lm IS NULL OR {{visible(lm)}}
WITH c, lm
ORDER BY c.last_seen_at DESC, c.id
LIMIT $limit
OPTIONAL MATCH (c)-[:FOR_SESSION]->(cs:Session)
WITH c, lm, collect(cs.id) AS session_ids
OPTIONAL MATCH (c)-[:IN_CONTEXT]->(cm:Memory)
WHERE {{visible(cm)}}
WITH c, lm, session_ids, collect(cm.id) AS context_ids
RETURN c {.id, .project_id, .signature, .error, .attempted, .tool, .command, .files, .fix, .occurrence_count, .first_seen_at, .last_seen_at, .fixed_at, .agent_id, .visibility} AS capsule,
       session_ids, context_ids, lm.id AS lesson_id
ORDER BY capsule.last_seen_at DESC, capsule.id
