// `{{new_vector(m, v)}}`: the memory `m`, created by this statement, gets the
// vector `v` (a list of floats), or none with a null `v`, as the float32
// vector type FalkorDB's index reads (vecf32). A new memory has no old vector
// to remove first, as set_vector does.
FOREACH (_ IN CASE WHEN @2 IS NULL THEN [] ELSE [1] END |
  SET @1.embedding = vecf32(@2))
