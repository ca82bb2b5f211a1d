// graphmem: a memory's neighbourhood
// The memory $id and everything within two relations of it, either way:
// what constrains or enables it, what it relates to, what it replaced.
// Every edge between two memories is a relation, whatever its type; a path
// through a session is not.
// Before: :param id => '<memory id>'
MATCH (m:Memory {id: $id})
OPTIONAL MATCH path = (m)-[*1..2]-(other:Memory)
WHERE other.project_id = m.project_id AND all(n IN nodes(path) WHERE n:Memory)
RETURN m, path
LIMIT 200
