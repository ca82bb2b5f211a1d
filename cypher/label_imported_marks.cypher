// The :NeedsReview label on the memories of $ids that an import brought in with a
// review mark: the import statements copy properties, and Browser draws a
// marked memory by this label (mark_for_review.cypher sets both together). The
// mark is read again under the memory's write lock, so one cleared meanwhile
// gets no label.
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.review_change IS NOT NULL
SET m:NeedsReview
RETURN count(m) AS labelled
