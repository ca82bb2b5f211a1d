// An import that left a line out takes back everything it created, so the
// project holds either the whole file or nothing of it. Records it merged into
// were there before and stay.
CALL {
  UNWIND $relations AS rel
  MATCH (a:Memory {id: rel.from_id})-[r]->(b:Memory {id: rel.to_id})
  WHERE a.project_id = $project_id AND b.project_id = $project_id AND type(r) = rel.type
  DELETE r
  RETURN count(*) AS relations
}
CALL {
  UNWIND $event_ids AS id
  MATCH (e:StagingEvent {id: id})
  WHERE e.project_id = $project_id
  DETACH DELETE e
  RETURN count(*) AS staging_events
}
CALL {
  UNWIND $event_ids AS id
  MATCH (e:ArchivalEvent {id: id})
  WHERE e.project_id = $project_id
  DETACH DELETE e
  RETURN count(*) AS archival_events
}
CALL {
  UNWIND $event_ids AS id
  MATCH (e:PromotionEvent {id: id})
  WHERE e.project_id = $project_id
  DETACH DELETE e
  RETURN count(*) AS promotion_events
}
CALL {
  UNWIND $run_ids AS id
  MATCH (r:PromotionRun {id: id})
  WHERE r.project_id = $project_id
  DETACH DELETE r
  RETURN count(*) AS promotion_runs
}
CALL {
  UNWIND $capsule_ids AS id
  MATCH (c:FailureCapsule {id: id})
  WHERE c.project_id = $project_id
  DETACH DELETE c
  RETURN count(*) AS failure_capsules
}
CALL {
  UNWIND $memory_ids AS id
  MATCH (m:Memory {id: id})
  WHERE m.project_id = $project_id
  DETACH DELETE m
  RETURN count(*) AS memories
}
CALL {
  UNWIND $session_ids AS id
  MATCH (s:Session {project_id: $project_id, id: id})
  DETACH DELETE s
  RETURN count(*) AS sessions
}
CALL {
  UNWIND CASE WHEN $project_created THEN [$project_id] ELSE [] END AS id
  MATCH (p:Project {id: id})
  DETACH DELETE p
  RETURN count(*) AS projects
}
RETURN relations, staging_events, archival_events, promotion_events, promotion_runs,
       failure_capsules, memories, sessions, projects
