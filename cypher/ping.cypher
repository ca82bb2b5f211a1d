// Readiness: the database answers a statement (graphmem.health).
RETURN 1 AS ok
