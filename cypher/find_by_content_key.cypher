// Exact duplicates: the normalised-text key is indexed, so this is a lookup.
// Archived memories do not absorb new occurrences (a rejected candidate stays rejected).
// The writer picks among them: an event repeats only an event of the same moment.
UNWIND $keys AS key
MATCH (m:Memory {content_key: key})
WHERE m.project_id = $project_id AND coalesce(m.tier, 'working') <> 'archived'
  AND {{visible(m)}}
RETURN key, m.id AS id, m.created_at AS created_at, m.memory_type AS memory_type,
       m.occurred_at AS occurred_at
ORDER BY created_at ASC
