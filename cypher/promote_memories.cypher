// One conditional write per memory: it moves only from the tier it was seen
// in, so concurrent runs never promote a memory twice. The tier is read again
// after the memory is write-locked: under Neo4j's concurrent transactions the
// second of two runs sees the move there and logs nothing.
// A run acting as an agent ($viewer) moves only what that agent may read.
UNWIND $moves AS move
MATCH (m:Memory {id: move.id})
WHERE m.project_id = $project_id AND m.tier = move.from_tier
  AND {{visible(m)}}
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
  reason: move.reason,
  component_names: move.component_names,
  component_values: move.component_values,
  component_contributions: move.component_contributions,
  at: $now
})
CREATE (e)-[:PROMOTED]->(m)
WITH collect(m.id) AS moved
// A scheduled or manual run is recorded in the same write as its moves, so no
// move is ever logged without its run; rotation fills in the rest afterwards.
CALL {
  WITH moved
  UNWIND CASE WHEN $run IS NULL THEN [] ELSE [$run] END AS run
  MATCH (s:Session {project_id: $project_id, id: run.session_id})
  CREATE (r:PromotionRun {
    id: $run_id,
    project_id: $project_id,
    session_id: run.session_id,
    trigger: $trigger,
    started_at: run.started_at,
    finished_at: $now,
    promoted: size(moved),
    failed: size($moves) - size(moved),
    failed_ids: [x IN $moves WHERE NOT x.id IN moved | x.id],
    rotated: 0,
    threshold: run.threshold
  })
  CREATE (r)-[:FOR_SESSION]->(s)
  SET s.promotion_runs = coalesce(s.promotion_runs, 0) + 1,
      s.promotion_total = coalesce(s.promotion_total, 0) + size(moved),
      s.last_run_at = $now,
      s.last_run_id = $run_id,
      s.last_trigger = $trigger,
      s.last_promoted = size(moved),
      s.last_failed = size($moves) - size(moved),
      s.last_rotated = 0,
      s.last_threshold = run.threshold
  RETURN count(r) AS recorded
}
RETURN moved, recorded
