// graphmem import: promotion runs as exported, linked to their session.
UNWIND $rows AS row
CREATE (r:PromotionRun)
SET r = row.props
WITH r, row
OPTIONAL MATCH (s:Session {project_id: $project_id, id: row.for_session})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | CREATE (r)-[:FOR_SESSION]->(s))
RETURN count(r) AS written
