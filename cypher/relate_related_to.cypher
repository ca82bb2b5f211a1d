MATCH (a:Memory {id: $from_id})
WHERE a.project_id = $project_id
MATCH (b:Memory {id: $to_id})
WHERE b.project_id = $project_id
MERGE (a)-[r:RELATED_TO]->(b)
  ON CREATE SET r.created_at = $now
SET r.rationale = $rationale, r.weight = $weight
RETURN a.id AS from_id, b.id AS to_id, r.rationale AS rationale, r.weight AS weight,
       r.created_at AS created_at
