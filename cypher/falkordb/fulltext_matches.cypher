// Every full-text match of $query (built from word tokens only, never user
// syntax) over content and rationale, with its text (content, then rationale:
// the words BM25 counts, one value to decode, not two): a project of up to
// exact_fulltext_below memories is ranked whole by BM25
// (graphmem/services/retrieval/retrievers.py), so nothing is ordered or cut
// here, and the index's own score, which moves whenever a memory's properties
// are written and with what other projects hold, is not even asked for
// (scoring 5,000 matches cost as much as reading them). $query holds the scope
// words of the project as the viewer may read it (Dialect.scoped,
// graphmem/domain/textscope.py); the project and visibility are checked again
// here all the same.
CALL db.idx.fulltext.queryNodes('Memory', $query) YIELD node
WITH node
WHERE node.project_id = $project_id
  AND {{visible(node)}}
RETURN node.id AS id, coalesce(node.content, '') + coalesce(' ' + node.rationale, '') AS text
