// graphmem: the constraints on a memory
// The memories that constrain $id directly, or constrain a memory that
// enables it, skipping constraints that something newer superseded.
// Before: :param id => '<memory id>'
MATCH (m:Memory {id: $id})
OPTIONAL MATCH path = (rule:Memory)-[:CONSTRAINS]->(:Memory)-[:ENABLES*0..2]->(m)
WHERE rule.project_id = m.project_id AND rule.superseded_by IS NULL
RETURN m, path
