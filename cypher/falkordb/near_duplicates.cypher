// For each new item's embedding, the few most similar live, current memories of
// the project at or above $threshold (cosine), most similar first, with what the
// restatement check reads: one index lookup per item, one round trip per batch.
// The index spans every project, so $k over-fetches before the filter.
UNWIND $items AS item
CALL db.idx.vector.queryNodes('Memory', 'embedding', $k, vecf32(item.vector)) YIELD node, score
WITH item, node, 1.0 - score AS similarity
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
