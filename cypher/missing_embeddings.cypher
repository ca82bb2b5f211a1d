// The next memories without an embedding, in id order after $after; all
// projects when $project_id is null.
MATCH (m:Memory)
WHERE ($project_id IS NULL OR m.project_id = $project_id)
  AND m.embedding IS NULL
  AND m.id > $after
RETURN m.id AS id, m.project_id AS project_id, m.content AS content, m.rationale AS rationale
ORDER BY id
LIMIT $limit
