// A write's merge taken back, once its part was written as a memory of its own
// ($part_id, created just before by the writer): the survivor gives up the
// occurrences, evidence, tags and wording the merge added, and the part counts
// the occurrences it brought. The log entry is read again under the locks, so
// of two undos of one merge the second changes nothing and gets no row.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id AND {{visible(m)}}
MATCH (part:Memory {id: $part_id})
WHERE part.project_id = $project_id
MATCH (e:StagingEvent {memory_id: $id})
WHERE e.id = $event_id AND e.project_id = $project_id
SET m._lock = true, part._lock = true, e._lock = true
REMOVE m._lock, part._lock, e._lock
WITH m, part, e
WHERE e.undone_at IS NULL AND m.content_key = e.content_key
  AND coalesce(m.occurrence_count, 1) - e.occurrences >= 1
SET m.occurrence_count = coalesce(m.occurrence_count, 1) - e.occurrences,
    m.evidence = [x IN coalesce(m.evidence, []) WHERE NOT x IN coalesce(e.added_evidence, [])],
    m.tags = [t IN coalesce(m.tags, []) WHERE NOT t IN coalesce(e.added_tags, [])],
    m.variants = [v IN coalesce(m.variants, []) WHERE NOT v IN coalesce(e.added_variants, [])],
    m.updated_at = $now,
    part.occurrence_count = e.occurrences,
    e.undone_at = $now
RETURN m.id AS id, part.id AS part
