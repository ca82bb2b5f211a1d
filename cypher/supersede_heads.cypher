// For each superseded memory, the heads of its chains: every memory that
// supersedes it directly or through a chain (SUPERSEDES points from the newer
// to the older memory) and is superseded by none, with the chain from that head
// down to the superseded one. A memory inside a chain is itself superseded, so
// no current read could take it as the successor: returning it read and parsed
// a memory per link for nothing (a chain of ten links, ten rows for one).
// Candidates carry only what scoring and filtering read (parsing every field of
// every candidate costs more than the query); results are re-read in full.
// One match over the list, not one per id (see get_memories.cypher), then
// walked from each superseded memory.
MATCH (old:Memory)
WHERE old.id IN $ids
  AND old.project_id = $project_id
MATCH p = (newer:Memory)-[:SUPERSEDES*1..16]->(old)
WHERE newer.superseded_by IS NULL
WITH old, p, newer
WHERE all(n IN nodes(p) WHERE n.project_id = $project_id)
RETURN old.id AS old_id, [n IN nodes(p) | n.id] AS chain, newer {.id, .project_id, .session_id, .content, .rationale, .memory_type, .tier, .status, .confidence, .importance, .access_count, .feedback_count, .tags, .superseded_by, .created_at, .occurred_at, .updated_at, .last_accessed_at, .valid_from, .valid_to} AS memory
