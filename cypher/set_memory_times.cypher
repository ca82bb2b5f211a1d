// Give memories new values of some of their times (graphmem migrate's repair
// of times no surface can show); each item is {id, times: {name: epoch seconds}}.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
SET m += item.times
RETURN count(m) AS changed
