// One conditional write per memory: it moves only from the tier it was seen
// in, so concurrent runs never promote a memory twice. Under Neo4j's
// concurrent transactions the tier is read again after the memory is
// write-locked, so the second of two runs sees the move and logs nothing.
UNWIND $moves AS move
MATCH (m:Memory {id: move.id})
WHERE m.project_id = $project_id
SET m._lock = true
REMOVE m._lock
WITH m, move
WHERE m.tier = move.from_tier
SET m.tier = move.to_tier,
    m.promoted_at = $now,
    m.updated_at = $now,
    m += move.importance_fields
CREATE (e:PromotionEvent {
  id: move.event_id,
  run_id: $run_id,
  memory_id: m.id,
  session_id: m.session_id,
  project_id: $project_id,
  trigger: $trigger,
  from_tier: move.from_tier,
  to_tier: move.to_tier,
  score: move.score,
  component_names: move.component_names,
  component_values: move.component_values,
  component_contributions: move.component_contributions,
  at: $now
})
CREATE (e)-[:PROMOTED]->(m)
RETURN m.id AS id
