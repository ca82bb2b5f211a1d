// Full-text scope words and length computed for memories that lacked them.
// Read again under the memory's write lock: a visibility change or an edit of
// the text meanwhile set its own, and they stand.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.text_scope IS NULL OR m.text_length IS NULL
SET m._lock = true
REMOVE m._lock
WITH m, item
WHERE m.text_scope IS NULL OR m.text_length IS NULL
SET m.text_scope = coalesce(m.text_scope, item.scope),
    m.text_length = coalesce(m.text_length, item.length)
RETURN count(m) AS changed
