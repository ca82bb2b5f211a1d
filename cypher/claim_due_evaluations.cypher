// Like claim_due_projects, for the nightly consistency evaluation. A project
// the scheduler has not seen yet is only scheduled, one interval ahead
// (`due` is false), so starting a server does not evaluate every project at
// once. Neo4j reads without locking, so each project is write-locked first
// and its next run time read again under the lock: of two servers, the one
// that lost the race sees the time the winner wrote and claims nothing.
MATCH (p:Project)
WHERE p.next_evaluation_at IS NULL OR p.next_evaluation_at <= $now
SET p._lock = true
REMOVE p._lock
WITH p, p.next_evaluation_at AS next
WHERE next IS NULL OR next <= $now
SET p.next_evaluation_at = $now + $interval,
    p.evaluation_lease_owner = $owner
RETURN p.id AS project_id, next IS NOT NULL AS due
