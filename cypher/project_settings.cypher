// A project's settings are properties of its node; a project with no node yet
// (nothing written) has none, and the defaults apply.
OPTIONAL MATCH (p:Project {id: $project_id})
RETURN properties(p) AS props
