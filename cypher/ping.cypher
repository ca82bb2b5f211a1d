// Readiness: the database answers a statement (graphmem.server.health).
RETURN 1 AS ok
