// Revoked keys stay listed (who had access, and until when) but never authenticate again.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k {.id, .name, .prefix, .projects, .role, .agent_id, .created_at, .revoked_at, .last_used_at} AS key
