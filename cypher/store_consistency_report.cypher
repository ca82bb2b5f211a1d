// One evaluator run: the summary as scalar properties (readable in Neo4j
// Browser, listable without parsing), the findings and metrics as JSON text.
CREATE (r:ConsistencyReport {
  id: $id,
  project_id: $project_id,
  schema_version: $schema_version,
  created_at: $created_at,
  duration_ms: $duration_ms,
  memories: $memories,
  relations: $relations,
  findings: $findings,
  errors: $errors,
  warnings: $warnings,
  infos: $infos,
  fixes_applied: $fixes_applied,
  evidence_written: $evidence_written,
  codes: $codes,
  code_counts: $code_counts,
  findings_stored: $findings_stored,
  findings_json: $findings_json,
  metrics_json: $metrics_json,
  report_json: $report_json
})
RETURN r.id AS id
