// graphmem import: which of these memory ids are taken, and by which project
// (import merges into its own project's memories and leaves others alone).
// One match over the list, not one per id (see get_memories.cypher): callers
// key the rows by id.
MATCH (m:Memory)
WHERE m.id IN $ids
RETURN m.id AS id, m.project_id AS project_id
