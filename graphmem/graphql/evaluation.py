"""The consistency evaluator: start a check off the request path, follow its
job, and list past reports and their trend.

Reports are read from the graph, so every server of a deployment lists the
same history; jobs live in the process that runs them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.scalars import JSON

from graphmem.domain import consistency
from graphmem.domain.clock import as_datetime, to_datetime
from graphmem.domain.results import Job
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info

strawberry.enum(consistency.Severity, name="FindingSeverity", description="How bad a finding is.")


@strawberry.type(description="One problem the evaluator found, with what to do about it.")
class ConsistencyFinding:
    code: str = strawberry.field(description="Stable across versions, e.g. SUPERSEDES_CYCLE.")
    severity: consistency.Severity
    memory_ids: list[strawberry.ID]
    message: str
    fix: str = strawberry.field(description="The suggested fix.")
    fixable: bool = strawberry.field(description="`graphmem evaluate --fix` repairs it safely.")
    details: JSON

    @classmethod
    def of(cls, finding: consistency.Finding) -> ConsistencyFinding:
        return cls(
            code=finding.code,
            severity=finding.severity,
            memory_ids=[strawberry.ID(i) for i in finding.memory_ids],
            message=finding.message,
            fix=finding.fix,
            fixable=finding.fixable,
            details=JSON(dict(finding.details)),
        )


@strawberry.type
class CodeCount:
    code: str
    count: int


@strawberry.type(description="A report's counts: enough to draw a trend.")
class ConsistencySummary:
    memories: int
    relations: int
    findings: int
    errors: int
    warnings: int
    infos: int
    by_code: list[CodeCount]


@strawberry.type(description="One stored evaluation of a project.")
class ConsistencyReport:
    id: strawberry.ID
    project_id: strawberry.ID
    schema_version: int
    created_at: datetime
    duration_ms: float
    summary: ConsistencySummary
    notes: list[str]
    metrics: JSON
    fixes: JSON | None
    evidence: JSON | None
    findings_truncated: bool = strawberry.field(
        description="The stored report keeps the first findings only; the summary counts all."
    )
    report: strawberry.Private[consistency.ConsistencyReport]

    @strawberry.field(description="Findings, worst first; optionally one severity or code only.")
    def findings(
        self,
        severity: consistency.Severity | None = None,
        code: str | None = None,
        first: int = 100,
    ) -> list[ConsistencyFinding]:
        chosen = [
            f
            for f in self.report.findings
            if (severity is None or f.severity is severity) and (code is None or f.code == code)
        ]
        return [ConsistencyFinding.of(f) for f in chosen[: max(first, 0)]]

    @strawberry.field(description="The whole report as versioned JSON (docs/evaluator-report.md).")
    def json(self) -> str:
        return self.report.to_json(indent=None)

    @classmethod
    def of(cls, report: consistency.ConsistencyReport) -> ConsistencyReport:
        data: dict[str, Any] = report.summary()
        return cls(
            id=strawberry.ID(report.id),
            project_id=strawberry.ID(report.project_id),
            schema_version=report.schema_version,
            created_at=as_datetime(report.created_at),
            duration_ms=report.duration_ms,
            summary=ConsistencySummary(
                memories=data["memories"],
                relations=data["relations"],
                findings=data["findings"],
                errors=data["errors"],
                warnings=data["warnings"],
                infos=data["infos"],
                by_code=[CodeCount(code=c, count=n) for c, n in data["by_code"].items()],
            ),
            notes=list(report.notes),
            metrics=json.loads(json.dumps(report.metrics)),
            fixes=None if report.fixes is None else JSON(report.fixes),
            evidence=None if report.evidence is None else JSON(report.evidence),
            findings_truncated=report.findings_total is not None
            and report.findings_total > len(report.findings),
            report=report,
        )


@strawberry.type(description="An evaluation running off the request path; its id is its report's.")
class ConsistencyJob:
    id: strawberry.ID
    project_id: strawberry.ID
    state: str = strawberry.field(description="queued, running, succeeded or failed.")
    submitted_at: datetime
    finished_at: datetime | None
    error: str | None

    @strawberry.field(description="The stored report, once the job has succeeded.")
    async def report(self, info: Info) -> ConsistencyReport | None:
        if self.state != "succeeded":
            return None
        found = await run_in_threadpool(
            info.context.gm.consistency_reports, report_id=str(self.id), project_id=self.project_id
        )
        return ConsistencyReport.of(found[0]) if found else None

    @classmethod
    def of(cls, job: Job) -> ConsistencyJob:
        return cls(
            id=strawberry.ID(job.id),
            project_id=strawberry.ID(job.project_id),
            state=job.state,
            submitted_at=as_datetime(job.submitted_at),
            finished_at=to_datetime(job.finished_at),
            error=job.error,
        )


@strawberry.type
class EvaluationQuery:
    @strawberry.field(description="Past evaluations of the project, newest first.")
    async def consistency_reports(
        self,
        info: Info,
        first: int = 20,
        before: datetime | None = None,
        project_id: ProjectId = None,
    ) -> list[ConsistencyReport]:
        reports = await run_in_threadpool(
            info.context.gm.consistency_reports,
            limit=first,
            before=before.timestamp() if before else None,
            project_id=project_id,
        )
        return [ConsistencyReport.of(r) for r in reports]

    @strawberry.field(
        description="One stored evaluation; null when the project has none by that id."
    )
    async def consistency_report(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> ConsistencyReport | None:
        found = await run_in_threadpool(
            info.context.gm.consistency_reports, report_id=str(id), project_id=project_id
        )
        return ConsistencyReport.of(found[0]) if found else None

    @strawberry.field(description="A job this server started; null once forgotten or elsewhere.")
    def consistency_job(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> ConsistencyJob | None:
        job = info.context.gm.consistency_job(str(id), project_id=project_id)
        return ConsistencyJob.of(job) if job else None


@strawberry.type
class EvaluationMutation:
    @strawberry.mutation(
        description="Check the project's memory graph for contradictions and broken invariants, "
        "in the background; follow the returned job. `fix` applies the safe fixes; `evidence` "
        "feeds each candidate's relevance to staging."
    )
    async def run_consistency_check(
        self,
        info: Info,
        fix: bool = False,
        evidence: bool = False,
        project_id: ProjectId = None,
    ) -> ConsistencyJob | None:
        job = await write(
            info,
            info.context.gm.submit_consistency_check,
            fix=fix,
            evidence=evidence,
            project_id=project_id,
        )
        return ConsistencyJob.of(job)
