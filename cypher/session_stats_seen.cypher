// A session's promotion counts as agent $viewer sees them, counted over the
// memories it may read (shared, or private to it): the moves of its recorded runs
// and of its last run, that run's failures and rotations, and its working
// memories now. (The session's own record counts every memory; session_stats.)
// A move of a memory since forgotten counts, as promotion_events shows it.
MATCH (s:Session {project_id: $project_id, id: $session_id})
CALL {
  WITH s
  OPTIONAL MATCH (r:PromotionRun)-[:FOR_SESSION]->(s)
  WITH s, collect(r.id) AS runs
  MATCH (e:PromotionEvent {session_id: s.id})
  WHERE e.project_id = $project_id AND e.run_id IN runs
  OPTIONAL MATCH (m:Memory {id: e.memory_id})
  WITH s, e, m
  WHERE m IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer
  RETURN count(e) AS total_promoted,
         count(CASE WHEN e.run_id = s.last_run_id THEN 1 END) AS last_promoted
}
OPTIONAL MATCH (last:PromotionRun {id: s.last_run_id})
WHERE last.project_id = $project_id
WITH s, total_promoted, last_promoted,
     coalesce(last.failed_ids, []) AS failed_ids, coalesce(last.rotated_ids, []) AS rotated_ids
CALL {
  WITH failed_ids
  UNWIND failed_ids AS failed_id
  MATCH (f:Memory {id: failed_id})
  WHERE f.project_id = $project_id
    AND (coalesce(f.visibility, 'shared') = 'shared' OR f.agent_id = $viewer)
  RETURN count(f) AS last_failed
}
CALL {
  WITH rotated_ids
  UNWIND rotated_ids AS rotated_id
  MATCH (o:Memory {id: rotated_id})
  WHERE o.project_id = $project_id
    AND (coalesce(o.visibility, 'shared') = 'shared' OR o.agent_id = $viewer)
  RETURN count(o) AS last_rotated
}
CALL {
  WITH s
  OPTIONAL MATCH (w:Memory {session_id: s.id})
  WHERE w.project_id = $project_id AND w.tier = 'working'
    AND (coalesce(w.visibility, 'shared') = 'shared' OR w.agent_id = $viewer)
  RETURN count(w) AS last_remaining
}
RETURN total_promoted, last_promoted, last_failed, last_rotated, last_remaining
