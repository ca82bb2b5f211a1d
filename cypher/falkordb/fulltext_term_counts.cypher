// How many memories each slot's query matches, counting no further than $cap:
// the cost of a query is what its words match. Each slot is one word held to
// one project as the viewer may read it (Dialect.scoped), so the count is that
// scope's document frequency. An empty slot matches nothing; a slot that
// matches nothing returns no row.
CALL db.idx.fulltext.queryNodes('Memory', $slots[0]) YIELD node WITH node LIMIT $cap RETURN 0 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[1]) YIELD node WITH node LIMIT $cap RETURN 1 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[2]) YIELD node WITH node LIMIT $cap RETURN 2 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[3]) YIELD node WITH node LIMIT $cap RETURN 3 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[4]) YIELD node WITH node LIMIT $cap RETURN 4 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[5]) YIELD node WITH node LIMIT $cap RETURN 5 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[6]) YIELD node WITH node LIMIT $cap RETURN 6 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[7]) YIELD node WITH node LIMIT $cap RETURN 7 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[8]) YIELD node WITH node LIMIT $cap RETURN 8 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[9]) YIELD node WITH node LIMIT $cap RETURN 9 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[10]) YIELD node WITH node LIMIT $cap RETURN 10 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[11]) YIELD node WITH node LIMIT $cap RETURN 11 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[12]) YIELD node WITH node LIMIT $cap RETURN 12 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[13]) YIELD node WITH node LIMIT $cap RETURN 13 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[14]) YIELD node WITH node LIMIT $cap RETURN 14 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $slots[15]) YIELD node WITH node LIMIT $cap RETURN 15 AS slot, count(node) AS matches
