// How many memories (of any project) each term matches, counting no further
// than $cap. One slot per term; an empty slot is skipped.
UNWIND CASE WHEN $terms[0] = '' THEN [] ELSE [$terms[0]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 0 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[1] = '' THEN [] ELSE [$terms[1]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 1 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[2] = '' THEN [] ELSE [$terms[2]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 2 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[3] = '' THEN [] ELSE [$terms[3]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 3 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[4] = '' THEN [] ELSE [$terms[4]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 4 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[5] = '' THEN [] ELSE [$terms[5]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 5 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[6] = '' THEN [] ELSE [$terms[6]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 6 AS slot, count(node) AS matches
UNION ALL
UNWIND CASE WHEN $terms[7] = '' THEN [] ELSE [$terms[7]] END AS term CALL db.index.fulltext.queryNodes('memory_text', term, {limit: $cap}) YIELD node WITH node RETURN 7 AS slot, count(node) AS matches
