// One access for each memory a knowledge context returned, and its importance
// rescored as of that access. Neo4j locks before reading only when SET itself
// reads the property; here the count is read in a WITH first, so the memory
// is write-locked before it, or concurrent contexts would lose accesses. The
// new score is written only when no other access or feedback moved the
// counters meanwhile (then that writer's stands).
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.project_id = $project_id
SET m._lock = true
REMOVE m._lock
WITH m, row, coalesce(m.access_count, 0) + 1 AS accesses
SET m.access_count = accesses,
    m.last_accessed_at = $now
FOREACH (_ IN CASE WHEN accesses = row.access_count
                    AND coalesce(m.feedback_count, 0) = row.feedback_count
                   THEN [1] ELSE [] END |
  SET m += row.fields)
RETURN m.id AS id, accesses AS access_count
