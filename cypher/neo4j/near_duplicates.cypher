// For each new item's embedding, the few most similar live, current memories of
// the project at or above $threshold (cosine; Neo4j scores cosine as
// (1 + cos) / 2), most similar first, with what the restatement check reads.
UNWIND $items AS item
CALL db.index.vector.queryNodes('memory_embedding', $k, item.vector) YIELD node, score
WITH item, node, 2.0 * score - 1.0 AS similarity
WHERE node.project_id = $project_id
  AND ($viewer IS NULL OR coalesce(node.visibility, 'shared') = 'shared' OR node.agent_id = $viewer)
  AND coalesce(node.tier, 'working') <> 'archived'
  AND node.superseded_by IS NULL
  AND similarity >= $threshold
WITH item, node, similarity
ORDER BY similarity DESC
WITH item, collect({id: node.id, similarity: similarity, content: node.content,
                    agent_id: node.agent_id, source: node.source,
                    visibility: coalesce(node.visibility, 'shared'),
                    confidence: node.confidence})[0..$hits] AS hits
RETURN item.index AS index, hits
