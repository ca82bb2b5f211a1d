// How many memories (of any project) each term matches, counting no further
// than $cap: the cost of a query is what its terms match. One slot per term;
// an empty slot matches nothing. A term that matches nothing returns no row.
CALL db.idx.fulltext.queryNodes('Memory', $terms[0]) YIELD node WITH node LIMIT $cap RETURN 0 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[1]) YIELD node WITH node LIMIT $cap RETURN 1 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[2]) YIELD node WITH node LIMIT $cap RETURN 2 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[3]) YIELD node WITH node LIMIT $cap RETURN 3 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[4]) YIELD node WITH node LIMIT $cap RETURN 4 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[5]) YIELD node WITH node LIMIT $cap RETURN 5 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[6]) YIELD node WITH node LIMIT $cap RETURN 6 AS slot, count(node) AS matches
UNION ALL
CALL db.idx.fulltext.queryNodes('Memory', $terms[7]) YIELD node WITH node LIMIT $cap RETURN 7 AS slot, count(node) AS matches
