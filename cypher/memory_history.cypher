// What says how each memory stood at a past time: its tier moves (promotions,
// archivals, restores, merges), its activation, and the SUPERSEDES relations
// into it, those still there and those removed since (until = when removed).
// graphmem.domain.validity replays them; docs/validity.md has the rules.
UNWIND $ids AS wanted
MATCH (e:PromotionEvent {memory_id: wanted})
WHERE e.project_id = $project_id
RETURN wanted AS memory_id, 'promoted' AS kind, e.at AS at, e.from_tier AS before,
       e.to_tier AS after, null AS other_id, null AS until, e.reason AS reason
UNION ALL
UNWIND $ids AS wanted
MATCH (e:ArchivalEvent {memory_id: wanted})
WHERE e.project_id = $project_id
RETURN wanted AS memory_id, e.kind AS kind, e.at AS at, e.from_tier AS before,
       e.to_tier AS after, e.other_id AS other_id, null AS until, e.reason AS reason
UNION ALL
UNWIND $ids AS wanted
MATCH (e:StagingEvent {memory_id: wanted})
WHERE e.project_id = $project_id AND e.kind = 'activated'
RETURN wanted AS memory_id, 'activated' AS kind, e.at AS at, e.before AS before,
       e.after AS after, null AS other_id, null AS until, e.signal AS reason
UNION ALL
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
WHERE m.project_id = $project_id
// Walked from m: a condition on n's project here would start the walk from an
// index scan over every memory of the project.
WITH wanted, m
MATCH (m)<-[r:SUPERSEDES]-(n:Memory)
WITH wanted, r, n
WHERE n.project_id = $project_id
RETURN wanted AS memory_id, 'superseded' AS kind, r.created_at AS at, null AS before,
       null AS after, n.id AS other_id, null AS until, null AS reason
UNION ALL
UNWIND $ids AS wanted
MATCH (e:RelationEvent {to_id: wanted})
WHERE e.project_id = $project_id AND e.type = 'SUPERSEDES'
RETURN wanted AS memory_id, 'superseded' AS kind, e.created_at AS at, null AS before,
       null AS after, e.from_id AS other_id, e.at AS until, null AS reason
