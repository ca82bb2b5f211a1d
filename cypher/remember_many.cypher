// One atomic write per batch: new memories are created (projects and sessions
// on first use) and duplicates are counted into the memories they repeat.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
WITH p
CALL {
  WITH p
  UNWIND $session_ids AS sid
  MERGE (s:Session {project_id: $project_id, id: sid})
    ON CREATE SET s.state = 'active', s.created_at = $now, s.updated_at = $now,
                  s.promotion_enabled = true
  MERGE (s)-[:IN_PROJECT]->(p)
  RETURN count(s) AS opened_sessions
}
CALL {
  UNWIND $rows AS row
  MATCH (s:Session {project_id: $project_id, id: row.session_id})
  CREATE (m:Memory)
  SET m = row
  CREATE (m)-[:IN_SESSION]->(s)
  RETURN count(m) AS created
}
CALL {
  UNWIND $merges AS merge
  MATCH (m:Memory {id: merge.id})
  WHERE m.project_id = $project_id
  SET m.occurrence_count = coalesce(m.occurrence_count, 1) + merge.occurrences,
      m.evidence = coalesce(m.evidence, []) + [x IN merge.evidence WHERE NOT x IN coalesce(m.evidence, [])],
      m.tags = coalesce(m.tags, []) + [t IN merge.tags WHERE NOT t IN coalesce(m.tags, [])],
      m.last_seen = $now,
      m.updated_at = $now
  CREATE (e:StagingEvent {
    id: merge.event_id,
    memory_id: m.id,
    project_id: $project_id,
    kind: 'merged',
    signal: merge.match,
    similarity: merge.similarity,
    at: $now
  })
  CREATE (e)-[:CHANGED]->(m)
  RETURN collect({id: m.id, status: m.status, occurrence_count: m.occurrence_count,
                  feedback: m.feedback, evaluator_relevance: m.evaluator_relevance}) AS merged
}
// Each touched session's working-tier size, for the memory-limit trigger.
CALL {
  UNWIND $session_ids AS sid
  MATCH (s:Session {project_id: $project_id, id: sid})
  OPTIONAL MATCH (w:Memory {session_id: sid})
  WHERE w.project_id = $project_id AND w.tier = 'working'
  WITH sid, s, count(w) AS working
  RETURN collect({session_id: sid, max_items: s.max_items, working: working}) AS sessions
}
RETURN created, merged, sessions
