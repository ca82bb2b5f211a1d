// `{{new_vector(m, v)}}`: the memory `m`, created by this statement, gets the
// vector `v` (a list of floats), or none with a null `v`. Neo4j's vector index
// reads the list as it is.
SET @1.embedding = @2
