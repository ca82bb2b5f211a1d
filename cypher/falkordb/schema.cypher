CREATE INDEX FOR (m:Memory) ON (m.id)
;
CREATE INDEX FOR (m:Memory) ON (m.project_id)
;
CREATE INDEX FOR (m:Memory) ON (m.session_id)
;
CREATE INDEX FOR (m:Memory) ON (m.tier)
;
CREATE INDEX FOR (m:Memory) ON (m.status)
;
CREATE INDEX FOR (m:Memory) ON (m.content_key)
;
CREATE INDEX FOR (s:Session) ON (s.id)
;
CREATE INDEX FOR (s:Session) ON (s.project_id)
;
CREATE INDEX FOR (p:Project) ON (p.id)
;
CREATE INDEX FOR (e:PromotionEvent) ON (e.memory_id)
;
CREATE INDEX FOR (e:PromotionEvent) ON (e.session_id)
;
CREATE INDEX FOR (e:StagingEvent) ON (e.memory_id)
;
CREATE INDEX FOR (e:RelationEvent) ON (e.project_id)
;
CREATE VECTOR INDEX FOR (m:Memory) ON (m.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
;
// A new graph's full-text index is made with every field at once; a graph
// made before the scope words gets the field added (already indexed in a new
// one). Adding a field to an index created a moment before once left FalkorDB
// not answering for 30 s.
CREATE FULLTEXT INDEX FOR (m:Memory) ON (m.content, m.rationale, m.text_scope)
;
CREATE FULLTEXT INDEX FOR (m:Memory) ON (m.text_scope)
;
CREATE INDEX FOR (k:ApiKey) ON (k.hash)
;
CREATE INDEX FOR (k:ApiKey) ON (k.id)

;
CREATE INDEX FOR (c:FailureCapsule) ON (c.signature)
;
CREATE INDEX FOR (c:FailureCapsule) ON (c.id)
;
CREATE INDEX FOR (c:FailureCapsule) ON (c.project_id)
;
CREATE INDEX FOR (e:RelationEvent) ON (e.from_id)
;
CREATE INDEX FOR (e:RelationEvent) ON (e.to_id)
;
CREATE INDEX FOR (e:ArchivalEvent) ON (e.memory_id)
;
CREATE INDEX FOR (d:Delivery) ON (d.project_id)
