// Near duplicates of a batch of memories, through the vector index: each
// memory's own stored vector is the query, so no vector is sent or returned.
// Neo4j scores cosine as (1 + cos) / 2. The index spans every project, so $k
// neighbours are asked for and filtered.
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id AND m.embedding IS NOT NULL
CALL db.index.vector.queryNodes('memory_embedding', $k, m.embedding) YIELD node, score
WITH m, node, 2.0 * score - 1.0 AS similarity
WHERE node.project_id = $project_id AND node.id <> m.id AND similarity >= $threshold
  AND coalesce(node.status, 'active') = 'active'
  AND coalesce(node.tier, 'working') <> 'archived'
RETURN m.id AS id, node.id AS other, similarity, m.content AS content,
       node.content AS other_content
