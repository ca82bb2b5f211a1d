// What relate and supersede check before they write: which ids exist in the
// project, and whether the new edge would close a SUPERSEDES cycle.
OPTIONAL MATCH (a:Memory {id: $from_id})
WHERE a.project_id = $project_id
  AND {{visible(a)}}
OPTIONAL MATCH (b:Memory {id: $to_id})
WHERE b.project_id = $project_id
  AND {{visible(b)}}
OPTIONAL MATCH path = (b)-[:SUPERSEDES*1..]->(a)
RETURN a IS NOT NULL AS from_exists,
       b IS NOT NULL AS to_exists,
       count(path) > 0 AS to_supersedes_from
