// Ingest-time previous_turn links: for each memory about to be written, the
// latest memory of its session that happened at or before it (by occurred_at,
// then creation), if any.
UNWIND $items AS item
CALL {
  WITH item
  MATCH (o:Memory {session_id: item.session_id})
  WHERE o.project_id = $project_id AND coalesce(o.tier, 'working') <> 'archived'
    AND coalesce(o.occurred_at, o.created_at) <= item.occurred_at
    AND {{visible(o)}}
  RETURN o
  ORDER BY coalesce(o.occurred_at, o.created_at) DESC, o.created_at DESC, o.id DESC
  LIMIT 1
}
RETURN item.index AS index, o.id AS id, coalesce(o.occurred_at, o.created_at) AS occurred_at
