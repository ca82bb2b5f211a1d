// One hop of a change's walk (graphmem.domain.dependencies): the memories that
// rest on $ids, by ENABLES or CONSTRAINS out of them, and whether each is still
// current (live, not archived, superseded, merged away or past its validTo).
// Every agent's memories are walked: a mark is the store's own note.
MATCH (m:Memory)-[r:{{dependency_types}}]->(d:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND d.project_id = $project_id
RETURN m.id AS from_id,
       type(r) AS type,
       d.id AS id,
       (coalesce(d.tier, 'working') <> 'archived'
        AND d.superseded_by IS NULL
        AND d.merged_into IS NULL
        AND (d.valid_to IS NULL OR d.valid_to > $now)) AS current
ORDER BY from_id, id, type
