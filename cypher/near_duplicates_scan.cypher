// near_duplicates for a small project: each new item's embedding against every
// live, current memory of the project, scored exactly (no index), the $k most
// similar at or above $threshold (cosine). The vector index near_duplicates
// asks spans every project, and on FalkorDB 4.16 the stale vectors each write
// leaves behind hide live memories from it, so it is asked again, larger; a
// project of a few thousand memories is scored whole for less, and the answer
// is final (`seen` is what it returns). An item nothing is near has no row.
UNWIND $items AS item
MATCH (node:Memory {project_id: $project_id})
WHERE node.embedding IS NOT NULL
  AND {{visible(node)}}
  AND coalesce(node.tier, 'working') <> 'archived'
  AND node.superseded_by IS NULL
WITH item, node, {{cosine(node.embedding, item.vector)}} AS similarity
WHERE similarity >= $threshold
WITH item, node, similarity
ORDER BY similarity DESC, node.id
WITH item, collect({node: node, similarity: similarity})[..$k] AS kept
RETURN item.index AS index, size(kept) AS seen,
       [f IN kept | {id: f.node.id, similarity: f.similarity, content: f.node.content,
                     agent_id: f.node.agent_id, source: f.node.source,
                     visibility: coalesce(f.node.visibility, 'shared'),
                     confidence: f.node.confidence, memory_type: f.node.memory_type,
                     occurred_at: f.node.occurred_at}] AS hits
