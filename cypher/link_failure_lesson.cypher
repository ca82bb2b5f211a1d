// A capsule's lesson, written by the report that claimed it, is linked once.
// The lesson's own write counted one occurrence; the capsule's count (every
// report so far, this one included) replaces it, so reports that came in
// while the lesson was being written are counted on it too. Read again under
// the capsule's write lock: of two links only the first applies.
MATCH (c:FailureCapsule {id: $capsule_id})
WHERE c.project_id = $project_id AND c.lesson_id IS NULL
SET c._lock = true
REMOVE c._lock
WITH c
WHERE c.lesson_id IS NULL
MATCH (l:Memory {id: $lesson_id})
WHERE l.project_id = $project_id
SET c.lesson_id = l.id,
    l.occurrence_count = coalesce(l.occurrence_count, 1) - 1 + c.occurrence_count,
    l.updated_at = $now
MERGE (c)-[:TAUGHT]->(l)
RETURN l.id AS lesson_id
