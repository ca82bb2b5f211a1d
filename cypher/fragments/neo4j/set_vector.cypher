// `{{set_vector(m, v)}}`: the memory `m`'s vector becomes `v`, a list of
// floats, or with a null `v` it has none. Neo4j's vector index reads the list
// as it is. FalkorDB spells this apart (fragments/falkordb/set_vector.cypher).
SET @1.embedding = @2
