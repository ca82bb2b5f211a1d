// The memories holding a time no surface can show: outside $earliest..$latest,
// or NaN, for which no comparison holds. With $project_id null, every project's
// (graphmem migrate repairs them all). Keyset pages after $after, in id order.
// The times are graphmem.domain.models.TIME_FIELDS (tests/unit/test_cypher_fragments.py
// keeps the two equal).
MATCH (m:Memory)
WHERE ($project_id IS NULL OR m.project_id = $project_id) AND m.id > $after
WITH m, {created_at: m.created_at, occurred_at: m.occurred_at, updated_at: m.updated_at,
         last_accessed_at: m.last_accessed_at, last_retrieved_at: m.last_retrieved_at,
         promoted_at: m.promoted_at, archived_at: m.archived_at,
         activated_at: m.activated_at, last_seen: m.last_seen, valid_from: m.valid_from,
         valid_to: m.valid_to, copied_at: m.copied_at,
         review_marked_at: m.review_marked_at} AS times
WITH m, [k IN keys(times) WHERE times[k] IS NOT NULL
                           AND NOT (times[k] >= $earliest AND times[k] <= $latest)
            | [k, times[k]]] AS unshowable
WHERE size(unshowable) > 0
RETURN m.id AS id, unshowable
ORDER BY id
LIMIT $limit
