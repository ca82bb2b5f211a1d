// consolidate --fingerprint: which of these dry-run groups a consolidation has
// already written, and into which memory: the SUPERSEDES edges it writes name
// the group's fingerprint in their rationale. Asked only for fingerprints no
// live group has, so an applied group is told apart from one that changed.
UNWIND $fingerprints AS fingerprint
MATCH (c:Memory {project_id: $project_id})-[r:SUPERSEDES]->(:Memory)
WHERE r.rationale STARTS WITH ('consolidated (group ' + fingerprint + ')')
RETURN DISTINCT fingerprint, c.id AS id
