// Near duplicates of a batch of memories, through the vector index: each
// memory's own stored vector is the query, so no vector is sent or returned.
// FalkorDB's score is the cosine distance; similarity is 1 - distance. The
// index spans every project, so $k neighbours are asked for and filtered.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id AND m.embedding IS NOT NULL
CALL db.idx.vector.queryNodes('Memory', 'embedding', $k, m.embedding) YIELD node, score
WITH m, node, 1.0 - score AS similarity
WHERE node.project_id = $project_id AND node.id <> m.id AND similarity >= $threshold
  AND coalesce(node.status, 'active') = 'active'
  AND coalesce(node.tier, 'working') <> 'archived'
RETURN m.id AS id, node.id AS other, similarity, m.content AS content,
       node.content AS other_content
