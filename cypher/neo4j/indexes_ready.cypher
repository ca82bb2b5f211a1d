// Whether each index of the database answers queries yet: Neo4j populates an
// index in the background, so setting up a database waits for every one.
SHOW INDEXES YIELD labelsOrTypes, state
RETURN labelsOrTypes[0] AS label, state = 'ONLINE' AS ready
