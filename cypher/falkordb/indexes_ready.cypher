// Whether each index of the graph answers queries yet: FalkorDB builds an index
// in the background, and a query in the meantime fails (a vector search names
// "invalid arguments"), so setting up a graph waits for every one.
CALL db.indexes() YIELD label, status
RETURN label, status = 'OPERATIONAL' AS ready
