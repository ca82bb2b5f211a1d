// Which model's vectors the store holds ($model: null until a model claims it),
// and whether any memory has a vector at all.
OPTIONAL MATCH (v:GraphmemSchema {id: 'graphmem'})
WITH v.embedding_model AS model
OPTIONAL MATCH (m:Memory)
WHERE m.embedding IS NOT NULL
WITH model, m
LIMIT 1
RETURN model, m IS NOT NULL AS embedded
