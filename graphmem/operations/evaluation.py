"""Operations of the consistency evaluator, which the server runs in the background."""

from __future__ import annotations

import builtins
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.consistency import ConsistencyReport
from graphmem.domain.results import Job
from graphmem.operations import documents as doc
from graphmem.operations.codec import decode, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


class EvaluationOperations:
    @operation(Role.ADMIN, "runConsistencyCheck", whole_project=True)
    def submit_consistency_check(
        *, fix: bool = False, evidence: bool = False, project_id: str | None = None
    ) -> Call[Job]:
        """Evaluate the project in the background; poll ``consistency_job``."""
        document = f"""mutation($fix: Boolean!, $evidence: Boolean!, $p: ID) {{
          runConsistencyCheck(fix: $fix, evidence: $evidence, projectId: $p) {{ {doc.JOB} }}
        }}"""
        variables = {"fix": fix, "evidence": evidence, "p": project_id}
        return Call(document, variables, lambda data: read(Job, data["runConsistencyCheck"]))

    @operation(Role.READ, whole_project=True)
    def consistency_job(job_id: str, *, project_id: str | None = None) -> Call[Job | None]:
        """A job the server started for the project; ``None`` for any other id."""
        document = (
            f"query($id: ID!, $p: ID) {{ consistencyJob(id: $id, projectId: $p) {{ {doc.JOB} }} }}"
        )
        variables = {"id": job_id, "p": project_id}
        return Call(document, variables, lambda data: decode(Job | None, data["consistencyJob"]))

    @operation(Role.READ, "consistencyReports", "consistencyReport", whole_project=True)
    def consistency_reports(
        *,
        limit: int = 20,
        before: float | None = None,
        report_id: str | None = None,
        full: bool = True,
        project_id: str | None = None,
    ) -> Call[builtins.list[ConsistencyReport]]:
        """Stored evaluator reports, newest first (``full=False``: summaries only,
        in process; a server sends them whole)."""
        if report_id is not None:
            document = (
                "query($id: ID!, $p: ID) { consistencyReport(id: $id, projectId: $p) { json } }"
            )
            variables: dict[str, Any] = {"id": report_id, "p": project_id}
        else:
            document = """query($first: Int!, $before: DateTime, $p: ID) {
              consistencyReports(first: $first, before: $before, projectId: $p) { json }
            }"""
            variables = {"first": limit, "before": doc.iso(before), "p": project_id}

        def result(data: dict[str, Any]) -> list[ConsistencyReport]:
            found = data.get("consistencyReports") or [data.get("consistencyReport")]
            return [ConsistencyReport.from_dict(doc.json_object(r["json"])) for r in found if r]

        return Call(document, variables, result)
