// Like claim_due_projects, for the nightly consistency evaluation. A project
// the scheduler has not seen yet is only scheduled, one interval ahead
// (`due` is false), so starting a server does not evaluate every project at
// once. (Filtering those rows out here would also drop their SET on FalkorDB.)
MATCH (p:Project)
WITH p, p.next_evaluation_at AS next
WHERE next IS NULL OR next <= $now
SET p.next_evaluation_at = $now + $interval,
    p.evaluation_lease_owner = $owner
RETURN p.id AS project_id, next IS NOT NULL AS due
