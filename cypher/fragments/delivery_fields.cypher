// A Delivery node's properties from the parameters of one answer's record
// (graphmem.services.deliveries.Deliveries.fields), as a map.
{
  id: $id,
  project_id: $project_id,
  at: $at,
  agent_id: $agent_id,
  session_id: $session_id,
  hint: $hint,
  hint_sha256: $hint_sha256,
  memory_ids: $memory_ids,
  scores: $scores
}
