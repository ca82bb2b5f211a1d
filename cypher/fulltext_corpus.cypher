// The full-text index's corpus for BM25: how many memories it holds (every
// project: the index spans them all, as do its term counts) and the text of
// about $sample of them drawn uniformly, whose mean analysed length and word
// counts stand for the store's. The draw is bound before the WHERE: FalkorDB
// 4.16 evaluates rand() * documents in a WHERE beside MATCH as false.
MATCH (m:Memory)
WITH count(m) AS documents
MATCH (s:Memory)
WITH documents, s, rand() AS draw
WHERE draw * documents < $sample
WITH documents, s
LIMIT $sample
RETURN documents, collect(coalesce(s.content, '') + ' ' + coalesce(s.rationale, '')) AS texts
