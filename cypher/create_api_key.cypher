// Only the key's hash is stored; the key itself is shown once, at creation.
CREATE (k:ApiKey {id: $id, name: $name, hash: $hash, prefix: $prefix,
                  projects: $projects, role: $role, agent_id: $agent_id,
                  created_at: $now})
RETURN k {.id, .name, .prefix, .projects, .role, .agent_id, .created_at, .revoked_at, .last_used_at} AS key
