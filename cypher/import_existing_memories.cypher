// graphmem import: which of these memory ids are taken, and by which project
// (import merges into its own project's memories and leaves others alone).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.project_id AS project_id
