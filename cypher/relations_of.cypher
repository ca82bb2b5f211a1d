UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})-[r]-(o:Memory)
WHERE m.project_id = $project_id AND o.project_id = $project_id
  AND {{visible(m)}}
  AND {{visible(o)}}
RETURN wanted AS memory_id, type(r) AS type, startNode(r).id AS from_id, endNode(r).id AS to_id,
       r.rationale AS rationale, r.weight AS weight, r.created_at AS created_at
ORDER BY created_at
