// RELATED_TO links between live, current memories of one project: with
// similarity, what joins memories into consolidation groups.
MATCH (a:Memory)-[:RELATED_TO]->(b:Memory)
WHERE a.project_id = $project_id AND b.project_id = $project_id
  AND coalesce(a.tier, 'working') <> 'archived' AND coalesce(b.tier, 'working') <> 'archived'
  AND a.superseded_by IS NULL AND b.superseded_by IS NULL
RETURN a.id AS id, b.id AS other
LIMIT $limit
