// Full-text matches of $query (built from word tokens only, never user syntax)
// over content and rationale: the candidates that retrieval ranks by BM25
// (graphmem/services/retrieval/fulltext.py). For a project of up to
// exact_fulltext_below memories $k exceeds its size, so every match comes and
// the index's own score chooses none; a larger one's best $k by that score do.
// $query holds the scope words of the project as the viewer may read it
// (Dialect.scoped, graphmem/domain/textscope.py), so the index matches nothing else;
// the project and visibility are checked again here all the same. The search filters apply in retrieval, to the fields
// of the best by BM25 only.
// `seen` is how many the index gave: fewer than $k means there are no more, so
// the caller does not ask again with a larger $k. A last row without an id
// always comes, so `seen` arrives even when no match is left.
// $fallback (or null) is the next, relaxed query: asked only when the index
// matched nothing for $query, so a question that needs relaxing costs one
// round trip instead of two; `fell_back` says which query the rows answer.
// Candidates carry their text (content, then rationale), which BM25 ranks them by; the fields of the best
// are read next (candidate_memories). Results are re-read in full.
CALL db.index.fulltext.queryNodes('memory_words', $query, {limit: $k}) YIELD node, score
WITH collect(node) AS first
CALL (first) {
  WITH first
  WHERE size(first) = 0 AND $fallback IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_words', $fallback, {limit: $k}) YIELD node, score
  RETURN collect(node) AS second
}
WITH CASE WHEN size(first) = 0 THEN second ELSE first END AS top, size(first) = 0 AND $fallback IS NOT NULL AS fell_back
UNWIND top + [null] AS node
WITH node, size(top) AS seen, fell_back
WHERE node IS NULL
   OR (node.project_id = $project_id
       AND {{visible(node)}})
RETURN node.id AS id, coalesce(node.content, '') + coalesce(' ' + node.rationale, '') AS text, seen, fell_back
