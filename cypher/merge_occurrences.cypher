// A duplicate written again: count it, union its evidence and tags, log the merge.
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
RETURN m.id AS id, m.status AS status, m.occurrence_count AS occurrence_count,
       m.feedback AS feedback, m.evaluator_relevance AS evaluator_relevance
