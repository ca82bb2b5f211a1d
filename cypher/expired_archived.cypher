// Memories archived before $expired_before (archive_expiry): what the purge will
// export, oldest first, with their relations so the export can restore them.
MATCH (m:Memory {project_id: $project_id})
WHERE m.tier = 'archived' AND m.archived_at < $expired_before
WITH m ORDER BY m.archived_at ASC, m.id ASC LIMIT $limit
OPTIONAL MATCH (m)-[r:{{relation_types}}]-(other:Memory)
WITH m, collect(CASE WHEN r IS NULL THEN NULL ELSE
       {type: type(r), from_id: startNode(r).id, to_id: endNode(r).id,
        rationale: r.rationale, weight: r.weight, created_at: r.created_at} END) AS relations
RETURN {{memory_projection(m)}} AS memory,
       relations
ORDER BY memory.archived_at ASC, memory.id ASC
