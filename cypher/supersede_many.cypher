// New values for facts their source stated before: each new memory supersedes
// the one it replaces, which stays (reads skip it through superseded_by;
// removing the edge restores it). Written right after the batch that created
// the new memories. The old memory is read again under its write lock: one
// superseded meanwhile keeps the successor it got.
UNWIND $supersedes AS edge
MATCH (a:Memory {id: edge.new_id})
WHERE a.project_id = $project_id
MATCH (b:Memory {id: edge.old_id})
WHERE b.project_id = $project_id AND b.superseded_by IS NULL
SET b._lock = true
REMOVE b._lock
WITH a, b, edge
WHERE b.superseded_by IS NULL
MERGE (a)-[r:SUPERSEDES]->(b)
  ON CREATE SET r.created_at = $now
SET r.rationale = edge.rationale, r.weight = 1.0,
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
RETURN a.id AS new_id, b.id AS old_id
