// Schema migration 1: memories written before statuses existed are active.
MATCH (m:Memory)
WHERE m.status IS NULL
SET m.status = 'active'
RETURN count(m) AS changed
