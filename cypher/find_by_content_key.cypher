// Exact duplicates: the normalised-text key is indexed, so this is a lookup.
// Archived memories do not absorb new occurrences (a rejected candidate stays rejected).
UNWIND $keys AS key
MATCH (m:Memory {content_key: key})
WHERE m.project_id = $project_id AND coalesce(m.tier, 'working') <> 'archived'
  AND ($viewer IS NULL OR coalesce(m.visibility, 'shared') = 'shared' OR m.agent_id = $viewer)
RETURN key, m.id AS id, m.created_at AS created_at
ORDER BY created_at ASC
