// The corpus BM25 reads for one project as the viewer sees it: how many of the
// project's memories the viewer may read (as the scoped full-text index counts
// them: every tier and status) and their analysed lengths summed (each write
// stores its memory's, graphmem/domain/analysis.py), so the mean is exact and
// costs no text; and, only when the project holds more than $sample of them,
// the text of about $sample drawn uniformly, whose word counts stand in for
// counting its common words (Corpus.estimate). Nothing of another project, or
// of another agent's private memories, enters (graphmem/domain/textscope.py).
// `indexed` is how many memories the whole store holds: the vector index spans
// them all, and a kNN that gave that many gave everything. The draw is bound
// before the WHERE: FalkorDB 4.16 evaluates rand() * documents in a WHERE beside
// MATCH as false.
MATCH (stored:Memory)
WITH count(stored) AS indexed
OPTIONAL MATCH (m:Memory {project_id: $project_id})
WHERE {{visible(m)}}
WITH indexed, count(m) AS documents, sum(coalesce(m.text_length, 0)) AS length
OPTIONAL MATCH (s:Memory {project_id: $project_id})
WHERE documents > $sample AND {{visible(s)}}
WITH indexed, documents, length, s, rand() AS draw
WHERE s IS NULL OR draw * documents < $sample
WITH indexed, documents, length, s
LIMIT $sample
RETURN indexed, documents, length,
       collect(CASE WHEN s IS NOT NULL THEN coalesce(s.content, '') + coalesce(' ' + s.rationale, '') END) AS texts
