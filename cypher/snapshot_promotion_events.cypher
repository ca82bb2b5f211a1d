// One page of a project's promotion log, in event id order after $after.
MATCH (e:PromotionEvent)
WHERE e.project_id = $project_id AND e.id > $after
WITH e
ORDER BY e.id
LIMIT $page
RETURN e.id AS id, e.memory_id AS memory_id, e.from_tier AS from_tier, e.to_tier AS to_tier,
       e.at AS at
ORDER BY id
