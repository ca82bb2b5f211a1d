// A page of a project's deliveries, newest first, after the cursor ($after_at,
// $after_id). An agent sees only the deliveries answered as it. With $changed,
// only those that gave a memory since superseded, archived, marked for review
// or forgotten (a memory the reader may not read is left out of that count).
MATCH (d:Delivery)
WHERE d.project_id = $project_id
  AND ($viewer IS NULL OR d.agent_id = $viewer)
  AND ($agent_id IS NULL OR d.agent_id = $agent_id)
  AND ($session_id IS NULL OR d.session_id = $session_id)
  AND ($memory_id IS NULL OR $memory_id IN d.memory_ids)
  AND ($since IS NULL OR d.at >= $since)
  AND ($until IS NULL OR d.at < $until)
  AND ($after_at IS NULL OR d.at < $after_at OR (d.at = $after_at AND d.id < $after_id))
WITH d
UNWIND CASE WHEN $changed THEN d.memory_ids + [null] ELSE [null] END AS given
OPTIONAL MATCH (m:Memory {id: given})
WHERE m.project_id = $project_id
WITH d,
     count(given) AS asked,
     count(m) AS present,
     count(CASE WHEN m IS NOT NULL AND {{visible(m)}}
                     AND (m.superseded_by IS NOT NULL OR m.tier = 'archived'
                          OR m.review_change IS NOT NULL)
                THEN 1 END) AS changed
WHERE NOT $changed OR changed > 0 OR present < asked
RETURN d {.id, .project_id, .at, .agent_id, .session_id, .hint, .hint_sha256,
          .memory_ids, .scores} AS delivery
ORDER BY delivery.at DESC, delivery.id DESC
LIMIT $limit
