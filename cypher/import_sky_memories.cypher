// Sky import: one page of records. New memories are created in the given
// session (opened, with the project, on first use); records that repeat a
// memory of the project merge into it: their tags join its tags (up to
// $max_tags), and a long-term record lifts a short-term memory to its
// long-term tier. Both parts are idempotent.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
WITH p
MERGE (s:Session {project_id: $project_id, id: $session_id})
  ON CREATE SET s.state = 'active', s.created_at = $now, s.updated_at = $now,
                s.promotion_enabled = true
MERGE (s)-[:IN_PROJECT]->(p)
WITH s
CALL {
  WITH s
  UNWIND $rows AS row
  MERGE (m:Memory {id: row.id})
    ON CREATE SET m = row
  MERGE (m)-[:IN_SESSION]->(s)
  RETURN count(m) AS created
}
CALL {
  UNWIND $merges AS merge
  MATCH (m:Memory {id: merge.id})
  WHERE m.project_id = $project_id
  SET m.tags = (coalesce(m.tags, []) +
                [t IN merge.tags WHERE NOT t IN coalesce(m.tags, [])])[0..$max_tags]
  FOREACH (_ IN CASE WHEN merge.tier IS NOT NULL AND m.tier IN ['working', 'episodic']
                     THEN [1] ELSE [] END |
    SET m.tier = merge.tier,
        m.promoted_at = coalesce(m.promoted_at, merge.promoted_at))
  RETURN count(m) AS merged
}
RETURN created, merged
