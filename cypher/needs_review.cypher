// The memories marked as needing review, newest mark first.
MATCH (m:Memory)
WHERE m.project_id = $project_id
  AND m.review_change IS NOT NULL
  AND {{visible(m)}}
RETURN {{memory_projection(m)}} AS memory
ORDER BY memory.review_marked_at DESC, memory.id
SKIP $skip
LIMIT $limit
