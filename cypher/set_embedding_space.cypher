// The model whose vectors the store holds from now on.
MERGE (v:GraphmemSchema {id: 'graphmem'})
SET v.embedding_model = $model
RETURN v.embedding_model AS model
