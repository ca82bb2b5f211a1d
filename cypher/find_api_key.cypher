MATCH (k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k {.id, .name, .prefix, .projects, .role, .agent_id, .created_at, .revoked_at, .last_used_at} AS key
