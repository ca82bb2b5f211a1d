// Ingest-time same_entity links: for each entity (one plain word), the most
// recent live memories of the project whose text holds it; the caller keeps
// those that name it as an entity. One round trip per batch.
UNWIND $items AS item
CALL {
  WITH item
  CALL db.idx.fulltext.queryNodes('Memory', item.query) YIELD node
  WITH node
  WHERE node.project_id = $project_id AND coalesce(node.tier, 'working') <> 'archived'
    AND node.superseded_by IS NULL
    AND {{visible(node)}}
  RETURN node
  ORDER BY coalesce(node.occurred_at, node.created_at) DESC, node.id DESC
  LIMIT $k
}
RETURN item.entity AS entity,
       collect({id: node.id, content: node.content,
                occurred_at: coalesce(node.occurred_at, node.created_at)}) AS hits
