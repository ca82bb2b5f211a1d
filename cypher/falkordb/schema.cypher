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
CREATE INDEX FOR (s:Session) ON (s.id)
;
CREATE INDEX FOR (s:Session) ON (s.project_id)
;
CREATE INDEX FOR (p:Project) ON (p.id)
