// One atomic write per batch: new memories are created with their embeddings
// (projects and sessions on first use) and duplicates are counted into the
// memories they repeat (a near duplicate's wording kept as a variant), which
// are returned as they now stand (the caller already holds the fields of the
// memories it created).
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
// Writers of one project queue on its node, so the duplicate lookups below see
// every batch committed before this one (FalkorDB, running one write at a
// time, runs the statement without the lock lines).
SET p._lock = true
REMOVE p._lock
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
// A row whose text a live memory took since the batch looked (another writer
// of the same text got there first) is counted into that memory instead, by
// the merge step below, as an exact match. An event repeats only an event of
// the same moment; a row without words to compare (row.dedup false) repeats
// nothing.
CALL {
  UNWIND $rows AS row
  MATCH (dup:Memory {content_key: row.props.content_key})
  WHERE $dedup AND row.dedup AND dup.project_id = $project_id
    AND coalesce(dup.tier, 'working') <> 'archived'
    AND (coalesce(dup.memory_type, '') = 'event') = (coalesce(row.props.memory_type, '') = 'event')
    AND (coalesce(row.props.memory_type, '') <> 'event'
         OR abs(dup.occurred_at - row.props.occurred_at) <= $event_window)
    AND {{visible(dup)}}
  WITH row, dup
  ORDER BY dup.created_at ASC
  WITH row, collect(dup.id)[0] AS oldest
  RETURN collect({row_id: row.props.id, id: oldest, occurrences: row.props.occurrence_count,
                  evidence: row.props.evidence, tags: row.props.tags, event_id: row.event_id,
                  match: 'exact', similarity: 1.0}) AS raced
}
CALL {
  UNWIND $rows AS row
  OPTIONAL MATCH (known:Memory {content_key: row.props.content_key})
  WHERE $dedup AND row.dedup AND known.project_id = $project_id
    AND (coalesce(known.memory_type, '') = 'event') = (coalesce(row.props.memory_type, '') = 'event')
    AND (coalesce(row.props.memory_type, '') <> 'event'
         OR abs(known.occurred_at - row.props.occurred_at) <= $event_window)
    AND {{visible(known)}}
    AND coalesce(known.tier, 'working') <> 'archived'
  WITH row, count(known) AS known
  WHERE known = 0
  MATCH (s:Session {project_id: $project_id, id: row.props.session_id})
  CREATE (m:Memory)
  SET m = row.props
  {{new_vector(m, row.embedding)}}
  CREATE (m)-[:IN_SESSION]->(s)
  RETURN count(m) AS created
}
CALL {
  WITH raced
  UNWIND $merges + raced AS merge
  MATCH (m:Memory {id: merge.id})
  WHERE m.project_id = $project_id
  // What the merge adds, kept on its log entry so that undo_merge can split it off.
  WITH merge, m,
       [x IN merge.evidence WHERE NOT x IN coalesce(m.evidence, [])] AS added_evidence,
       [t IN merge.tags WHERE NOT t IN coalesce(m.tags, [])] AS added_tags,
       [v IN coalesce(merge.variants, []) WHERE v <> m.content AND NOT v IN coalesce(m.variants, [])] AS added_variants
  SET m.occurrence_count = coalesce(m.occurrence_count, 1) + merge.occurrences,
      m.evidence = coalesce(m.evidence, []) + added_evidence,
      m.tags = coalesce(m.tags, []) + added_tags,
      m.variants = coalesce(m.variants, []) + added_variants,
      m.last_seen = $now,
      m.updated_at = $now
  CREATE (e:StagingEvent {
    id: merge.event_id,
    memory_id: m.id,
    project_id: $project_id,
    kind: 'merged',
    signal: merge.match,
    similarity: merge.similarity,
    occurrences: merge.occurrences,
    added_evidence: added_evidence,
    added_tags: added_tags,
    added_variants: added_variants,
    content_key: m.content_key,
    at: $now
  })
  CREATE (e)-[:CHANGED]->(m)
  RETURN collect(m {.*, embedding: null}) AS merged
}
// Links graphmem adds itself (the project's auto_links), from a memory just
// created to an earlier one; a row that was not created links nothing.
CALL {
  UNWIND $links AS l
  MATCH (a:Memory {id: l.from_id}), (b:Memory {id: l.to_id})
  WHERE a.project_id = $project_id AND b.project_id = $project_id
  MERGE (a)-[r:RELATED_TO]->(b)
    ON CREATE SET r.created_at = $now, r.rationale = l.rationale, r.weight = l.weight
  RETURN count(r) AS linked
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
RETURN created, raced, merged, linked, sessions
