// `{{cosine(v1, v2)}}`: the cosine similarity of the stored vector `v1` and the
// list of floats `v2`, on [-1, 1] (FalkorDB gives the distance, 1 - cosine).
1.0 - vec.cosineDistance(@1, vecf32(@2))
