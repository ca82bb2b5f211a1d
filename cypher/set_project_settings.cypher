// Set some of a project's settings ($settings holds only the ones given, under
// their stored names); the project node is made if nothing was written yet.
MERGE (p:Project {id: $project_id})
  ON CREATE SET p.created_at = $now
SET p += $settings
RETURN properties(p) AS props
