// The corpus BM25 reads for one project as the viewer sees it: how many of the
// project's memories the viewer may read (as the scoped full-text index counts
// them: every tier and status), and the text of about $sample of them drawn
// uniformly, whose mean analysed length and word counts stand for the
// project's. Nothing of another project, or of another agent's private
// memories, enters (graphmem/domain/textscope.py). `indexed` is how many memories the
// whole store holds: the vector index spans them all, and a kNN that gave
// that many gave everything. The draw is bound before the WHERE: FalkorDB 4.16
// evaluates rand() * documents in a WHERE beside MATCH as false.
MATCH (stored:Memory)
WITH count(stored) AS indexed
OPTIONAL MATCH (m:Memory {project_id: $project_id})
WHERE {{visible(m)}}
WITH indexed, count(m) AS documents
OPTIONAL MATCH (s:Memory {project_id: $project_id})
WHERE {{visible(s)}}
WITH indexed, documents, s, rand() AS draw
WHERE s IS NULL OR draw * documents < $sample
WITH indexed, documents, s
LIMIT $sample
RETURN indexed, documents,
       collect(CASE WHEN s IS NOT NULL THEN coalesce(s.content, '') + ' ' + coalesce(s.rationale, '') END) AS texts
