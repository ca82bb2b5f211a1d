// Every memory within $depth (at most 3) relations of a seed, walking the
// relation types asked for in either direction, with the path that reaches it.
// Paths stay inside the project.
// Candidates carry only what scoring and filtering read (parsing every field of
// every candidate costs more than the query); results are re-read in full.
UNWIND $seed_ids AS seed_id
MATCH p = (s:Memory {id: seed_id})-[:{{traversed_relation_types}}*1..3]-(o:Memory)
WHERE s.project_id = $project_id
  AND {{visible(s)}}
  AND length(p) <= $depth
  AND o.id <> seed_id
  AND all(r IN relationships(p) WHERE type(r) IN $relation_types)
  AND all(n IN nodes(p) WHERE n.project_id = $project_id)
  AND all(n IN nodes(p) WHERE {{visible(n)}})
WITH seed_id, o, p
LIMIT $max_paths
RETURN seed_id, o {.id, .project_id, .session_id, .content, .rationale, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} AS memory,
       [n IN nodes(p) | n.id] AS node_ids,
       [r IN relationships(p) | {type: type(r), from_id: startNode(r).id, to_id: endNode(r).id}] AS steps
