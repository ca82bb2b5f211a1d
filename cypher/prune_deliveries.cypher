// Up to $limit of a project's deliveries past what it keeps: beyond its
// $keep_count newest, or answered before $before. The caller repeats until
// fewer than $limit go.
MATCH (d:Delivery)
WHERE d.project_id = $project_id
WITH d
ORDER BY d.at DESC, d.id DESC
WITH collect(d) AS newest_first
WITH [i IN range(0, size(newest_first) - 1)
      WHERE ($keep_count IS NOT NULL AND i >= $keep_count)
         OR ($before IS NOT NULL AND newest_first[i].at < $before)
      | newest_first[i]] AS past
UNWIND past[0..$limit] AS d
DELETE d
RETURN count(*) AS pruned
