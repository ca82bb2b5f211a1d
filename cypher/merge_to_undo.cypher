// The newest merge into a memory that is not undone yet (with $from_id: the
// merge that folded that memory in), with what it added. A merge logged before
// merges kept what they added has no `occurrences`: it is reported as such.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
MATCH (e:StagingEvent {memory_id: m.id})
WHERE e.project_id = $project_id AND e.kind = 'merged' AND e.undone_at IS NULL
  AND ($from_id IS NULL OR e.merged_from = $from_id)
RETURN e {.id, .merged_from, .signal, .occurrences, .accesses, .feedback, .feedback_count,
          .added_evidence, .added_tags, .added_variants, .content_key, .activated, .at} AS event,
       m.content_key = e.content_key AS unedited
ORDER BY event.at DESC
LIMIT 1
