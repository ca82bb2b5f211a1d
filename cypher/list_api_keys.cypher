MATCH (k:ApiKey)
RETURN k {.id, .name, .prefix, .projects, .role, .agent_id, .created_at, .revoked_at, .last_used_at} AS key
ORDER BY k.created_at, k.id
