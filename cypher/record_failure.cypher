// One report of a failure, in one write: the capsule of its signature is
// created on first sight and counted on every sight after (never a second
// capsule), linked to the session and to the memories that were in context,
// and its lesson, once written, counts the recurrence too (logged as a merge).
// The count is read and written in one SET, so Neo4j locks the capsule before
// reading it and concurrent reports of one failure each count once; the
// lesson is only touched after that lock is held.
// A report that finds no lesson yet claims the writing of it (exactly one
// report does; a claim older than $claim_before may be taken over).
// A private report's signature names its agent, so a report only ever counts on
// a capsule of its own audience; the lesson is returned only when the reporter
// may read it.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
MERGE (s:Session {project_id: $project_id, id: $session_id})
  ON CREATE SET s.state = 'active', s.created_at = $now, s.updated_at = $now,
                s.promotion_enabled = true
MERGE (s)-[:IN_PROJECT]->(p)
MERGE (c:FailureCapsule {project_id: $project_id, signature: $signature})
  ON CREATE SET c += $props, c.id = $report_id, c.occurrence_count = 0, c.first_seen_at = $now
SET c.occurrence_count = c.occurrence_count + 1,
    c.last_seen_at = $now,
    c.error = $error,
    c.files = coalesce(c.files, []) + [f IN $files WHERE NOT f IN coalesce(c.files, [])]
FOREACH (_ IN CASE WHEN $fix IS NULL THEN [] ELSE [1] END |
  SET c.fix = $fix, c.fixed_at = $now)
FOREACH (_ IN CASE WHEN c.lesson_id IS NULL AND coalesce(c.lesson_claimed_at, 0.0) < $claim_before
                   THEN [1] ELSE [] END |
  SET c.lesson_claim = $report_id, c.lesson_claimed_at = $now)
MERGE (c)-[:FOR_SESSION]->(s)
WITH c
CALL {
  WITH c
  UNWIND $context_ids AS mid
  MATCH (m:Memory {id: mid})
  WHERE m.project_id = $project_id
    AND {{visible(m)}}
  MERGE (c)-[:IN_CONTEXT]->(m)
  RETURN count(m) AS linked
}
CALL {
  WITH c
  OPTIONAL MATCH (c)-[:TAUGHT]->(l:Memory)
  WITH c, l
  WHERE l IS NOT NULL
  SET l.occurrence_count = coalesce(l.occurrence_count, 1) + 1,
      l.last_seen = $now,
      l.updated_at = $now
  FOREACH (_ IN CASE WHEN $fix_evidence IS NULL OR $fix_evidence IN coalesce(l.evidence, [])
                     THEN [] ELSE [1] END |
    SET l.evidence = coalesce(l.evidence, []) + [$fix_evidence])
  CREATE (e:StagingEvent {
    id: $event_id,
    memory_id: l.id,
    project_id: $project_id,
    kind: 'merged',
    signal: 'failure',
    at: $now
  })
  CREATE (e)-[:CHANGED]->(l)
  RETURN count(l) AS counted
}
OPTIONAL MATCH (c)-[:FOR_SESSION]->(cs:Session)
WITH c, collect(cs.id) AS session_ids
OPTIONAL MATCH (c)-[:IN_CONTEXT]->(cm:Memory)
WHERE {{visible(cm)}}
WITH c, session_ids, collect(cm.id) AS context_ids
// The lesson as linked now: a lesson someone forgot is gone from the capsule too.
OPTIONAL MATCH (c)-[:TAUGHT]->(lm:Memory)
WHERE {{visible(lm)}}
WITH c, session_ids, context_ids, lm
RETURN c {.id, .project_id, .signature, .error, .attempted, .tool, .command, .files, .fix, .occurrence_count, .first_seen_at, .last_seen_at, .fixed_at, .agent_id, .visibility} AS capsule,
       session_ids, context_ids, lm.id AS lesson_id,
       c.id = $report_id AS created,
       c.lesson_id IS NULL AND c.lesson_claim = $report_id AS claimed
