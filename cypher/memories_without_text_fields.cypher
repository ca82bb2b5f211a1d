// Memories without full-text scope words or length (written before graphmem kept
// them, or by a Cypher script): what computing them needs
// (graphmem/domain/analysis.py, graphmem/domain/textscope.py).
MATCH (m:Memory)
WHERE m.text_scope IS NULL OR m.text_length IS NULL
RETURN m.id AS id, m.project_id AS project_id, m.agent_id AS agent_id,
       m.visibility AS visibility, m.content AS content, m.rationale AS rationale
LIMIT $limit
