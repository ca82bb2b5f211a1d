// For each new item's embedding, the few most similar live, current memories of
// the project at or above $threshold (cosine; Neo4j scores cosine as
// (1 + cos) / 2), with what the restatement check reads. `seen` is how many
// the index gave (the writer asks again with a larger $k when FalkorDB's index
// gave fewer; see cypher/falkordb). An item the index gave nothing for has no row.
UNWIND $items AS item
CALL db.index.vector.queryNodes('memory_embedding', $k, item.vector) YIELD node, score
WITH item, collect({node: node, similarity: 2.0 * score - 1.0}) AS found
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
