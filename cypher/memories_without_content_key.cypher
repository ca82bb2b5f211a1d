MATCH (m:Memory)
WHERE m.content_key IS NULL
RETURN m.id AS id, m.content AS content
LIMIT $limit
