// Candidates awaiting activation or review, per project: the
// graphmem_candidates_waiting gauge of /metrics.
MATCH (m:Memory)
WHERE m.status = 'candidate' AND coalesce(m.tier, 'working') <> 'archived'
RETURN m.project_id AS project_id, count(m) AS candidates
