// The scheduler's lease: claiming a due session moves its next run forward in
// the same write, so two servers on one database never run it twice. Neo4j
// runs transactions concurrently and reads without locking, so each session
// is write-locked first (SET then REMOVE leaves no trace) and whether it is
// still due is read again under the lock: a server that lost the race sees
// the next run time the winner wrote and skips the session.
MATCH (s:Session)
WHERE s.state = 'active'
  AND coalesce(s.promotion_enabled, true) = true
  AND coalesce(s.next_promotion_at, 0.0) <= $now
WITH s
ORDER BY coalesce(s.next_promotion_at, 0.0) ASC
LIMIT $limit
SET s._lock = true
REMOVE s._lock
WITH s
WHERE s.state = 'active'
  AND coalesce(s.promotion_enabled, true) = true
  AND coalesce(s.next_promotion_at, 0.0) <= $now
SET s.next_promotion_at = $now + coalesce(s.promotion_interval_seconds, $default_interval),
    s.promotion_lease_owner = $owner
RETURN s.project_id AS project_id, s.id AS session_id
