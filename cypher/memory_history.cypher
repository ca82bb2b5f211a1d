// What says how each memory stood at a past time: its tier moves (promotions,
// archivals, restores, merges), its activation, and the SUPERSEDES relations
// into it, those still there and those removed since (until = when removed).
// graphmem.domain.validity replays them; docs/validity.md has the rules.
// Each part matches the whole list at once, not once per id (see
// get_memories.cypher).
MATCH (e:PromotionEvent)
WHERE e.memory_id IN $ids
  AND e.project_id = $project_id
RETURN e.memory_id AS memory_id, 'promoted' AS kind, e.at AS at, e.from_tier AS before,
       e.to_tier AS after, null AS other_id, null AS until, e.reason AS reason
UNION ALL
MATCH (e:ArchivalEvent)
WHERE e.memory_id IN $ids
  AND e.project_id = $project_id
RETURN e.memory_id AS memory_id, e.kind AS kind, e.at AS at, e.from_tier AS before,
       e.to_tier AS after, e.other_id AS other_id, null AS until, e.reason AS reason
UNION ALL
MATCH (e:StagingEvent)
WHERE e.memory_id IN $ids
  AND e.project_id = $project_id AND e.kind = 'activated'
RETURN e.memory_id AS memory_id, 'activated' AS kind, e.at AS at, e.before AS before,
       e.after AS after, null AS other_id, null AS until, e.signal AS reason
UNION ALL
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
// Walked from m: a condition on n's project here would start the walk from an
// index scan over every memory of the project.
WITH m
MATCH (m)<-[r:SUPERSEDES]-(n:Memory)
WITH m, r, n
WHERE n.project_id = $project_id
RETURN m.id AS memory_id, 'superseded' AS kind, r.created_at AS at, null AS before,
       null AS after, n.id AS other_id, null AS until, null AS reason
UNION ALL
MATCH (e:RelationEvent)
WHERE e.to_id IN $ids
  AND e.project_id = $project_id AND e.type = 'SUPERSEDES'
RETURN e.to_id AS memory_id, 'superseded' AS kind, e.created_at AS at, null AS before,
       null AS after, e.from_id AS other_id, e.at AS until, null AS reason
