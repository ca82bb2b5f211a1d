"""What the consistency evaluator reports: findings, their codes and the report.

``ConsistencyReport.to_dict`` is the contract (docs/evaluator-report.md):
machines read the JSON, people read it rendered on the CLI or as an HTML
page. The same document is stored in the graph as a ``:ConsistencyReport``
node, so past runs and their trend can be listed. These classes are plain
data, so a client decodes a stored report without loading the evaluator.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import GraphMemError

SCHEMA_VERSION = 1


class Severity(StrEnum):
    """``error`` is data the lifecycle can never produce and that breaks reads
    (a cycle, a value out of range, a reference to nothing); ``warning`` is a
    state that makes the agent see the wrong thing (an old version served, a
    conflict, a stale score); ``info`` is work a scheduled job has not done yet."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.INFO: 1}


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    memory_ids: tuple[str, ...]
    message: str
    fix: str
    fixable: bool = False
    """``graphmem evaluate --fix`` repairs it safely (see ``graphmem.services.evaluator.fixes``)."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Machine-readable facts behind the message (values compared, the cycle's order)."""

    def sort_key(self) -> tuple[int, str, tuple[str, ...]]:
        return (-self.severity.rank, self.code, self.memory_ids)


@dataclass(frozen=True, slots=True)
class CodeInfo:
    severity: Severity
    title: str


CODES: dict[str, CodeInfo] = {
    "SUPERSEDES_SELF": CodeInfo(Severity.ERROR, "a memory supersedes itself"),
    "SUPERSEDES_CYCLE": CodeInfo(Severity.ERROR, "SUPERSEDES edges form a cycle"),
    "SUPERSESSION_INVERTED": CodeInfo(
        Severity.WARNING, "a superseded memory is served while its successor is not"
    ),
    "SUPERSESSION_FORKED": CodeInfo(
        Severity.WARNING, "two memories supersede the same one independently"
    ),
    "SUPERSEDED_BY_MISMATCH": CodeInfo(
        Severity.WARNING, "superseded_by disagrees with the SUPERSEDES edges"
    ),
    "RELATION_CONFLICT": CodeInfo(Severity.WARNING, "a pair both CONSTRAINS and ENABLES"),
    "CONSTRAINS_CYCLE": CodeInfo(
        Severity.WARNING, "procedural rules constrain each other in a cycle"
    ),
    "RESTS_ON_NOTHING_CURRENT": CodeInfo(
        Severity.WARNING, "a current memory rests only on memories that are no longer current"
    ),
    "NEAR_DUPLICATE": CodeInfo(Severity.WARNING, "two active memories say the same thing"),
    "CONSOLIDATION_PROVENANCE": CodeInfo(
        Severity.WARNING, "a consolidated memory and its sources disagree"
    ),
    "IMPORTANCE_OUT_OF_RANGE": CodeInfo(Severity.ERROR, "importance missing or outside [0, 1]"),
    "CONFIDENCE_OUT_OF_RANGE": CodeInfo(Severity.ERROR, "confidence missing or outside [0, 1]"),
    "TIME_OUT_OF_RANGE": CodeInfo(Severity.ERROR, "a stored time no surface can show"),
    "IMPORTANCE_STALE": CodeInfo(
        Severity.WARNING, "stored importance differs from a recomputation"
    ),
    "PINNED_NOT_PROCEDURAL": CodeInfo(
        Severity.WARNING, "a pinned memory is not procedural and active"
    ),
    "ARCHIVED_WITHOUT_TIMESTAMP": CodeInfo(Severity.ERROR, "archived without archived_at"),
    "LIFECYCLE_INVALID": CodeInfo(
        Severity.ERROR, "a tier/status combination the lifecycle forbids"
    ),
    "PROMOTION_LOG_MISMATCH": CodeInfo(
        Severity.WARNING, "the promotion log disagrees with the current tier"
    ),
    "DANGLING_REFERENCE": CodeInfo(Severity.ERROR, "a reference to a memory that does not exist"),
    "CROSS_PROJECT_RELATION": CodeInfo(Severity.ERROR, "a relation to another project's memory"),
    "ORPHAN_MEMORY": CodeInfo(Severity.WARNING, "a live memory outside any session of its project"),
    "PROMOTION_OVERDUE": CodeInfo(Severity.INFO, "promotion should have moved this memory"),
    "ARCHIVAL_OVERDUE": CodeInfo(Severity.INFO, "archival should have moved this memory"),
}
"""Every code a report can contain, with its severity; codes never change meaning."""


@dataclass
class ConsistencyReport:
    id: str
    project_id: str
    created_at: float
    """The evaluation's clock time: every time-dependent check used this one instant."""
    findings: list[Finding] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    memories: int = 0
    relations: int = 0
    duration_ms: float = 0.0
    timings_ms: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    fixes: dict[str, Any] | None = None
    """``{"dry_run", "planned": [...], "applied": [...]}`` when fixes were asked for."""
    evidence: dict[str, Any] | None = None
    """``{"written", "activated": [...]}`` when relevance evidence was written."""
    findings_total: int | None = None
    """How many findings the run had, when ``findings`` holds fewer (a stored report)."""
    schema_version: int = SCHEMA_VERSION
    stored_summary: dict[str, Any] | None = None
    """The summary as stored, for a report read without its body (a trend listing)."""

    def counts(self) -> dict[str, int]:
        if self.stored_summary is not None:
            s = self.stored_summary
            return {"error": s["errors"], "warning": s["warnings"], "info": s["infos"]}
        by_severity = Counter(f.severity.value for f in self.findings)
        return {s.value: by_severity.get(s.value, 0) for s in Severity}

    def by_code(self) -> dict[str, int]:
        if self.stored_summary is not None:
            return dict(self.stored_summary["by_code"])
        return dict(sorted(Counter(f.code for f in self.findings).items()))

    def at_or_above(self, severity: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity.rank >= severity.rank]

    def summary(self) -> dict[str, Any]:
        if self.stored_summary is not None:
            return dict(self.stored_summary)
        counts = self.counts()
        return {
            "memories": self.memories,
            "relations": self.relations,
            "findings": self.findings_total
            if self.findings_total is not None
            else len(self.findings),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "by_code": self.by_code(),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "id": self.id,
            "project_id": self.project_id,
            "created_at": self.created_at,
            "created_at_iso": utc_iso(self.created_at),
            "duration_ms": self.duration_ms,
            "timings_ms": self.timings_ms,
            "settings": self.settings,
            "summary": self.summary(),
            "findings": [finding_to_dict(f) for f in self.findings],
            "findings_truncated": self.findings_total is not None
            and self.findings_total > len(self.findings),
            "notes": self.notes,
            "metrics": self.metrics,
            "fixes": self.fixes,
            "evidence": self.evidence,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConsistencyReport:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise GraphMemError(f"report schema_version {version!r} is not {SCHEMA_VERSION}")
        findings = [finding_from_dict(f) for f in data["findings"]]
        total = data["summary"]["findings"]
        return cls(
            id=data["id"],
            project_id=data["project_id"],
            created_at=data["created_at"],
            findings=findings,
            metrics=data["metrics"],
            notes=data["notes"],
            memories=data["summary"]["memories"],
            relations=data["summary"]["relations"],
            duration_ms=data["duration_ms"],
            timings_ms=data["timings_ms"],
            settings=data["settings"],
            fixes=data["fixes"],
            evidence=data["evidence"],
            findings_total=total if total != len(findings) else None,
        )


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "memory_ids": list(f.memory_ids),
        "message": f.message,
        "fix": f.fix,
        "fixable": f.fixable,
        "details": dict(f.details),
    }


def finding_from_dict(data: dict[str, Any]) -> Finding:
    return Finding(
        code=data["code"],
        severity=Severity(data["severity"]),
        memory_ids=tuple(data["memory_ids"]),
        message=data["message"],
        fix=data["fix"],
        fixable=data["fixable"],
        details=data["details"],
    )


def utc_iso(epoch: float) -> str:
    """A report's instant as people read it, in UTC."""
    return as_datetime(epoch).isoformat()
