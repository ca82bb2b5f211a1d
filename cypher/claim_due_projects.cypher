// Like claim_due_sessions, for project-wide jobs (archival).
MATCH (p:Project)
WHERE coalesce(p.next_archival_at, 0.0) <= $now
SET p.next_archival_at = $now + $interval,
    p.archival_lease_owner = $owner
RETURN p.id AS project_id
