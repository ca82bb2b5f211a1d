// The superseded memory remembers its successor, so reads can skip it cheaply.
MATCH (a:Memory {id: $from_id})
WHERE a.project_id = $project_id
MATCH (b:Memory {id: $to_id})
WHERE b.project_id = $project_id
MERGE (a)-[r:SUPERSEDES]->(b)
  ON CREATE SET r.created_at = $now
SET r.rationale = $rationale, r.weight = $weight,
    b.superseded_by = a.id, b.updated_at = $now
// Supersession closes the older memory's validity at the newer one's start
// (never before its own), unless an end was given outright; valid_to_by names
// the relation's source, so removing the relation reopens it.
FOREACH (_ IN CASE WHEN b.valid_to IS NULL OR b.valid_to_by IS NOT NULL THEN [1] ELSE [] END |
  SET b.valid_to = CASE
        WHEN coalesce(a.valid_from, a.occurred_at, a.created_at) > coalesce(b.valid_from, b.occurred_at, b.created_at)
        THEN coalesce(a.valid_from, a.occurred_at, a.created_at)
        ELSE coalesce(b.valid_from, b.occurred_at, b.created_at) END,
      b.valid_to_by = a.id)
RETURN a.id AS from_id, b.id AS to_id, r.rationale AS rationale, r.weight AS weight,
       r.created_at AS created_at
