// For each new item's embedding, the most similar live memory of the project at
// or above $threshold (cosine), if any: one index lookup per item, one round trip
// per batch. The index spans every project, so $k over-fetches before the filter.
UNWIND $items AS item
CALL db.idx.vector.queryNodes('Memory', 'embedding', $k, vecf32(item.vector)) YIELD node, score
WITH item, node, 1.0 - score AS similarity
WHERE node.project_id = $project_id
  AND coalesce(node.tier, 'working') <> 'archived'
  AND similarity >= $threshold
WITH item, node, similarity
ORDER BY similarity DESC
WITH item, collect([node.id, similarity]) AS hits
RETURN item.index AS index, hits[0][0] AS id, hits[0][1] AS similarity
