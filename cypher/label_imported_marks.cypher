// The :NeedsReview label on the memories of $ids that an import brought in with a
// review mark: the import statements copy properties, and Browser draws a
// marked memory by this label (mark_for_review.cypher sets both together).
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND m.review_change IS NOT NULL
SET m:NeedsReview
RETURN count(m) AS labelled
