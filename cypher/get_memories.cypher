// The memories of $ids, in no particular order (callers key them by id). One
// match over the list, not a match per id: a plan made on stale statistics (a
// database just filled) may scan the id index instead of seeking it, once here,
// where per id it would scan it once for every id asked.
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
RETURN {{memory_projection(m)}} AS memory
