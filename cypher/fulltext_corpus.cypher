// The full-text index's corpus for BM25: how many memories it holds (every
// project: the index spans them all, as do its term counts) and the text of
// up to $sample of them, whose mean analysed length stands for the store's.
MATCH (m:Memory)
WITH count(m) AS documents
MATCH (s:Memory)
WITH documents, s
LIMIT $sample
RETURN documents, collect(coalesce(s.content, '') + ' ' + coalesce(s.rationale, '')) AS texts
