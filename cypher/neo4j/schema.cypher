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
CREATE CONSTRAINT session_key IF NOT EXISTS FOR (s:Session) REQUIRE (s.project_id, s.id) IS UNIQUE
;
CREATE CONSTRAINT project_id IF NOT EXISTS FOR (p:Project) REQUIRE p.id IS UNIQUE
