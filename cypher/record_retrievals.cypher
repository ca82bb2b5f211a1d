// One retrieval for each memory a knowledge context returned. Retrieval is not
// use: access_count and last_accessed_at (what frequency, recency and
// importance read) move only on an explicit access, so what retrieval returns
// does not feed on itself. The memory is write-locked before its count is read
// (Neo4j locks before reading only when SET itself reads the property), so
// concurrent contexts lose no retrieval. One match over the list, not one per
// id (see get_memories.cypher): each memory counts once.
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
SET m._lock = true
REMOVE m._lock
{{count_retrieval(m)}}
RETURN m.id AS id, retrievals AS retrieval_count
