// The relations leaving the project's memories with ids in [$first, $last]
// (the range of one page of snapshot_memories). One string per relation,
// fields joined by $sep, keeps a 300,000-relation reply small: the reply's
// size, not the scan, is what a snapshot pays for. A relation into another
// project carries that project's id as a fourth field.
MATCH (a:Memory)
WHERE a.project_id = $project_id AND a.id >= $first AND a.id <= $last
MATCH (a)-[r]->(b:Memory)
RETURN a.id + $sep + type(r) + $sep + b.id
       + CASE WHEN b.project_id = $project_id THEN '' ELSE $sep + coalesce(b.project_id, '') END
       AS relation
