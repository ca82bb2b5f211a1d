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
RETURN a.id AS new_id, b.id AS old_id
