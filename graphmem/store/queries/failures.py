"""Failure capsules: a report recorded (a capsule created or counted), the
lesson it taught linked, and the capsules read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.capsules import FailureCapsule, FailureReport, fix_evidence, signature
from graphmem.domain.kinds import Visibility
from graphmem.store import Store


def _capsule(row: Mapping[str, Any]) -> FailureCapsule:
    """A capsule from a row of ``record_failure`` or ``failure_capsules``: its
    node's properties, its sessions, the memories in context, its lesson."""
    fields = {k: v for k, v in row["capsule"].items() if v is not None}
    return FailureCapsule.model_validate(
        {
            **fields,
            "session_ids": sorted(row["session_ids"]),
            "context_memory_ids": sorted(row["context_ids"]),
            "lesson_id": row["lesson_id"],
        }
    )


@dataclass(frozen=True, slots=True)
class Recorded:
    """What recording one report did to its capsule."""

    capsule: FailureCapsule
    created: bool
    """This report made the capsule (its first)."""
    claimed: bool
    """This report is the one to write the capsule's lesson."""


def record(
    store: Store,
    report: FailureReport,
    *,
    report_id: str,
    session_id: str,
    visibility: Visibility,
    event_id: str,
    claim_before: float,
    project_id: str,
    now: float,
) -> Recorded:
    """Record the report (as ``report_id``, in ``session_id``, seen as
    ``visibility``, logged as ``event_id``): a new capsule, or one more
    occurrence of the capsule of its signature (and of its lesson, when
    linked). A lesson claim taken before ``claim_before`` and never linked
    passes to this report."""
    props = {
        "attempted": report.attempted,
        "tool": report.tool,
        "command": report.command,
        "agent_id": report.agent_id,
        "visibility": visibility.value,
    }
    (row,) = store.write(
        "record_failure",
        {
            "project_id": project_id,
            "session_id": session_id,
            "signature": signature(report),
            "report_id": report_id,
            "props": {key: value for key, value in props.items() if value is not None},
            "error": report.error,
            "files": report.files,
            "fix": report.fix,
            "fix_evidence": fix_evidence(report.fix) if report.fix else None,
            "context_ids": report.context_memory_ids,
            "claim_before": claim_before,
            "event_id": event_id,
            "now": now,
        },
    )
    return Recorded(capsule=_capsule(row), created=row["created"], claimed=row["claimed"])


def link_lesson(
    store: Store, capsule_id: str, lesson_id: str, *, project_id: str, now: float
) -> str | None:
    """Link the lesson to the capsule, its count made the capsule's; the lesson's
    id, or ``None`` when the capsule had one linked already (or either is gone)."""
    rows = store.write(
        "link_failure_lesson",
        {"capsule_id": capsule_id, "lesson_id": lesson_id, "project_id": project_id, "now": now},
    )
    return rows[0]["lesson_id"] if rows else None


def capsules(
    store: Store,
    *,
    session_id: str | None,
    capsule_id: str | None,
    lesson_ids: Sequence[str] | None,
    limit: int,
    project_id: str,
) -> list[FailureCapsule]:
    """The capsules the viewer may read, most recently seen first: of one session,
    one id, or those that taught ``lesson_ids``, where given."""
    rows = store.read(
        "failure_capsules",
        {
            "project_id": project_id,
            "session_id": session_id,
            "id": capsule_id,
            "lesson_ids": None if lesson_ids is None else list(lesson_ids),
            "limit": limit,
        },
    )
    return [_capsule(row) for row in rows]
