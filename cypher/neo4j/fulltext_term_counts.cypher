// How many memories each slot's query matches, counting no further than $cap:
// the cost of a query is what its words match. Each slot is one word held to
// one project as the viewer may read it (Dialect.scoped), so the count is that
// scope's document frequency. An empty slot matches nothing; a slot that
// matches nothing returns no row.
UNWIND CASE WHEN $slots[0] = '' THEN [] ELSE [$slots[0]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 0 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[1] = '' THEN [] ELSE [$slots[1]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 1 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[2] = '' THEN [] ELSE [$slots[2]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 2 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[3] = '' THEN [] ELSE [$slots[3]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 3 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[4] = '' THEN [] ELSE [$slots[4]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 4 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[5] = '' THEN [] ELSE [$slots[5]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 5 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[6] = '' THEN [] ELSE [$slots[6]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 6 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[7] = '' THEN [] ELSE [$slots[7]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 7 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[8] = '' THEN [] ELSE [$slots[8]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 8 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[9] = '' THEN [] ELSE [$slots[9]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 9 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[10] = '' THEN [] ELSE [$slots[10]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 10 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[11] = '' THEN [] ELSE [$slots[11]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 11 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[12] = '' THEN [] ELSE [$slots[12]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 12 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[13] = '' THEN [] ELSE [$slots[13]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 13 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[14] = '' THEN [] ELSE [$slots[14]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 14 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $slots[15] = '' THEN [] ELSE [$slots[15]] END AS term CALL db.index.fulltext.queryNodes('memory_words', term, {limit: $cap}) YIELD node WITH node RETURN 15 AS slot, count(node) AS matches
