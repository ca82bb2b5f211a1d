// One more retrieval on `@` (a memory a knowledge context returned), read under
// the memory's write lock the statement took.
WITH @, coalesce(@.retrieval_count, 0) + 1 AS retrievals
SET @.retrieval_count = retrievals, @.last_retrieved_at = $now
