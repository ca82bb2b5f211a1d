UNWIND $items AS item
MATCH (m:Memory {id: item.id})
SET m.content_key = item.key
RETURN count(m) AS changed
