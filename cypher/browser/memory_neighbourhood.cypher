// graphmem: a memory's neighbourhood
// The memory $id and everything within two relations of it, either way:
// what constrains or enables it, what it relates to, what it replaced.
// Before: :param id => '<memory id>'
MATCH (m:Memory {id: $id})
OPTIONAL MATCH path = (m)-[:CONSTRAINS|ENABLES|RELATED_TO|SUPERSEDES*1..2]-(other:Memory)
WHERE other.project_id = m.project_id
RETURN m, path
LIMIT 200
