// `{{cosine(v1, v2)}}`: the cosine similarity of the stored vector `v1` and the
// list of floats `v2`, on [-1, 1] (Neo4j gives (1 + cosine) / 2).
2.0 * vector.similarity.cosine(@1, @2) - 1.0
