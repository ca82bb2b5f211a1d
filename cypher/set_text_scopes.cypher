// Full-text scope words computed for memories that had none.
// Read again under the memory's write lock: a visibility changed meanwhile set
// the words already, and they stand.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.text_scope IS NULL
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE m.text_scope IS NULL
SET m.text_scope = item.scope
RETURN count(m) AS changed
