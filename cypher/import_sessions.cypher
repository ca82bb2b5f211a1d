// graphmem import: sessions as exported, linked to the project where they were.
UNWIND $rows AS row
CREATE (s:Session)
SET s = row.props
WITH s, row
OPTIONAL MATCH (p:Project {id: row.in_project})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | CREATE (s)-[:IN_PROJECT]->(p))
RETURN count(s) AS written
