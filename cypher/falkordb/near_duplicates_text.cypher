// Without embeddings: for each new item, the live memories of the project that
// best match its words in the full-text index; the caller measures token
// overlap (Jaccard) on these few. One round trip per batch.
UNWIND $items AS item
CALL db.idx.fulltext.queryNodes('Memory', item.query) YIELD node, score
WITH item, node, score
WHERE node.project_id = $project_id AND coalesce(node.tier, 'working') <> 'archived'
  AND {{visible(node)}}
  AND node.superseded_by IS NULL
WITH item, node, score
ORDER BY score DESC
WITH item, collect({id: node.id, content: node.content, agent_id: node.agent_id,
                    visibility: coalesce(node.visibility, 'shared'),
                    source: node.source, confidence: node.confidence,
                    memory_type: node.memory_type, occurred_at: node.occurred_at})[0..$k] AS hits
RETURN item.index AS index, hits
