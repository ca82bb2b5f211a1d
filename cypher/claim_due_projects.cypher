// Like claim_due_sessions, for project-wide jobs (archival): lock, then read
// again whether the project is still due, so concurrent servers claim it once.
MATCH (p:Project)
WHERE coalesce(p.next_archival_at, 0.0) <= $now
SET p._lock = true
REMOVE p._lock
WITH p
WHERE coalesce(p.next_archival_at, 0.0) <= $now
SET p.next_archival_at = $now + $interval,
    p.archival_lease_owner = $owner
RETURN p.id AS project_id
