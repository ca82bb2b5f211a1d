// One page of the memories consolidation may group, in id order after $after
// (keyset pagination over the indexed id, no SKIP): live, active and current,
// with whether each CONSTRAINS another memory or is a failure capsule's lesson
// (such memories stay as written). Never the embedding.
MATCH (m:Memory)
WHERE m.project_id = $project_id AND m.id > $after
  AND coalesce(m.tier, 'working') IN $tiers
  AND coalesce(m.status, 'active') = 'active'
  AND m.superseded_by IS NULL
  AND {{visible(m)}}
WITH m
ORDER BY m.id
LIMIT $page
RETURN {{memory_projection(m)}} AS memory,
       size([(m)-[:CONSTRAINS]->(c:Memory) | c.id]) > 0 AS constrains,
       size([(f:FailureCapsule)-[:TAUGHT]->(m) | f.id]) > 0 AS taught
