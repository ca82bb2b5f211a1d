CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE
;
CREATE INDEX memory_project IF NOT EXISTS FOR (m:Memory) ON (m.project_id)
;
CREATE INDEX memory_session IF NOT EXISTS FOR (m:Memory) ON (m.session_id)
;
CREATE INDEX memory_tier IF NOT EXISTS FOR (m:Memory) ON (m.tier)
;
CREATE INDEX memory_status IF NOT EXISTS FOR (m:Memory) ON (m.status)
;
CREATE INDEX memory_content_key IF NOT EXISTS FOR (m:Memory) ON (m.content_key)
;
CREATE CONSTRAINT session_key IF NOT EXISTS FOR (s:Session) REQUIRE (s.project_id, s.id) IS UNIQUE
;
CREATE CONSTRAINT project_id IF NOT EXISTS FOR (p:Project) REQUIRE p.id IS UNIQUE
;
CREATE INDEX promotion_event_memory IF NOT EXISTS FOR (e:PromotionEvent) ON (e.memory_id)
;
CREATE INDEX promotion_event_session IF NOT EXISTS FOR (e:PromotionEvent) ON (e.session_id)
;
CREATE INDEX staging_event_memory IF NOT EXISTS FOR (e:StagingEvent) ON (e.memory_id)
;
CREATE INDEX relation_event_project IF NOT EXISTS FOR (e:RelationEvent) ON (e.project_id)
;
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON (m.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}
;
DROP INDEX memory_text IF EXISTS
;
CREATE FULLTEXT INDEX memory_words IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.rationale, m.text_scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE
;
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE

;
CREATE CONSTRAINT failure_capsule_signature IF NOT EXISTS FOR (c:FailureCapsule) REQUIRE (c.project_id, c.signature) IS UNIQUE
;
CREATE INDEX failure_capsule_id IF NOT EXISTS FOR (c:FailureCapsule) ON (c.id)
;
CREATE INDEX relation_event_from IF NOT EXISTS FOR (e:RelationEvent) ON (e.from_id)
;
CREATE INDEX relation_event_to IF NOT EXISTS FOR (e:RelationEvent) ON (e.to_id)
;
CREATE INDEX archival_event_memory IF NOT EXISTS FOR (e:ArchivalEvent) ON (e.memory_id)
;
CREATE INDEX delivery_project IF NOT EXISTS FOR (d:Delivery) ON (d.project_id)
