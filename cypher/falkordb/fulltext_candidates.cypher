// Every full-text match of $query (built from word tokens only, never user
// syntax) over content and rationale, up to $cap: retrieval ranks them all by
// BM25 (graphmem/services/retrieval/fulltext.py), so the index's own score,
// which moves whenever a memory's properties are written (the write re-indexes
// its document) and with what other projects hold, is neither read nor used to
// choose. $query is one group of words (the rare ones, or one common word) and
// holds the scope words of the project as the viewer may read it
// (Dialect.scoped, graphmem/domain/textscope.py), so the index matches nothing
// else; the project and visibility are checked again here all the same. The
// search filters apply in retrieval, to the fields of the best by BM25 only.
// Matches carry their id and text, which BM25 ranks them by; the fields of the
// best are read next (candidate_memories). Results are re-read in full.
CALL db.idx.fulltext.queryNodes('Memory', $query) YIELD node
WITH node
LIMIT $cap
WITH node
WHERE node.project_id = $project_id
  AND {{visible(node)}}
RETURN node.id AS id, node.content AS content, node.rationale AS rationale
