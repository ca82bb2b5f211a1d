// One knowledgeContext answer, on record: who asked (project, agent, session),
// when, the hint's digest (and its text when the setting keeps it), and the
// memories given as lists by rank (ids and scores): the record reads the same
// after a memory it names is forgotten, and writing it matches no node.
CREATE (d:Delivery {
  id: $id,
  project_id: $project_id,
  at: $at,
  agent_id: $agent_id,
  session_id: $session_id,
  hint: $hint,
  hint_sha256: $hint_sha256,
  memory_ids: $memory_ids,
  scores: $scores
})
RETURN d.id AS id
