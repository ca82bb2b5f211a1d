// A project's past evaluator runs, newest first; $before (a created_at) pages
// back, $id picks one run. The JSON bodies come back only when asked for, so
// listing a trend stays small.
MATCH (r:ConsistencyReport)
WHERE r.project_id = $project_id
  AND ($id IS NULL OR r.id = $id)
  AND ($before IS NULL OR r.created_at < $before)
RETURN r {.id, .project_id, .schema_version, .created_at, .duration_ms, .memories, .relations,
          .findings, .errors, .warnings, .infos, .fixes_applied, .evidence_written, .codes,
          .code_counts, .findings_stored} AS summary,
       CASE WHEN $full THEN r.report_json ELSE null END AS report_json
ORDER BY summary.created_at DESC, summary.id DESC
LIMIT $limit
