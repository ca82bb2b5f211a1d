// `{{set_vector(m, v)}}`: the memory `m`'s vector becomes `v`, a list of
// floats, or with a null `v` it has none. FalkorDB's vector index reads the
// float32 vector type, which vecf32 makes, and a vector is written only for a
// list. The old vector is removed first: FalkorDB 4.16 can leave a vector
// unchanged when SET writes over it.
REMOVE @1.embedding
FOREACH (_ IN CASE WHEN @2 IS NULL THEN [] ELSE [1] END |
  SET @1.embedding = vecf32(@2))
