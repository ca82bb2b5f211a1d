// For each new item's embedding, the most similar live memory of the project at
// or above $threshold (cosine; Neo4j scores cosine as (1 + cos) / 2).
UNWIND $items AS item
CALL db.index.vector.queryNodes('memory_embedding', $k, item.vector) YIELD node, score
WITH item, node, 2.0 * score - 1.0 AS similarity
WHERE node.project_id = $project_id
  AND coalesce(node.tier, 'working') <> 'archived'
  AND similarity >= $threshold
WITH item, node, similarity
ORDER BY similarity DESC
WITH item, collect([node.id, similarity]) AS hits
RETURN item.index AS index, hits[0][0] AS id, hits[0][1] AS similarity
