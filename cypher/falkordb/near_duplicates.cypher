// For each new item's embedding, the few most similar live, current memories of
// the project at or above $threshold (cosine), with what the restatement check
// reads: one index lookup per item, one round trip per batch. The index spans
// every project, so $k over-fetches before the filter. `seen` is how many the
// index gave: FalkorDB 4.16 leaves a memory's old vectors in its index after
// each write to it, and those hide live ones from a kNN of $k (fewer come
// back), so it is asked again with a larger $k (graphmem/store/knn.py).
// An item the index gave nothing for has no row.
UNWIND $items AS item
CALL db.idx.vector.queryNodes('Memory', 'embedding', $k, vecf32(item.vector)) YIELD node, score
WITH item, collect({node: node, similarity: 1.0 - score}) AS found
WITH item, size(found) AS seen,
     [f IN found WHERE f.node.project_id = $project_id
        AND {{visible(f.node)}}
        AND coalesce(f.node.tier, 'working') <> 'archived'
        AND f.node.superseded_by IS NULL
        AND f.similarity >= $threshold] AS kept
RETURN item.index AS index, seen,
       [f IN kept | {id: f.node.id, similarity: f.similarity, content: f.node.content,
                     agent_id: f.node.agent_id, source: f.node.source,
                     visibility: coalesce(f.node.visibility, 'shared'),
                     confidence: f.node.confidence, memory_type: f.node.memory_type,
                     occurred_at: f.node.occurred_at}] AS hits
