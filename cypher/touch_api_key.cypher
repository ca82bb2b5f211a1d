// Coarse on purpose: callers touch a key at most once a minute, not per request.
MATCH (k:ApiKey {id: $id})
SET k.last_used_at = $now
RETURN k.id AS id
