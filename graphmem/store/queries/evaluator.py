"""The consistency evaluator's reads and writes: a project's snapshot a page at a
time, the vector index's near duplicates, the safe fixes, and the stored reports.

A snapshot is read for every memory of a project, so its pages come back as
little as possible: a memory's checked fields are a map the snapshot keeps
as the node's attributes (``graphmem.services.evaluator.snapshot.MEMORY_FIELDS``),
a relation one joined text, and the sessions and promotion events the records
below.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from graphmem.domain.consistency import SCHEMA_VERSION, ConsistencyReport, finding_to_dict
from graphmem.store import Store
from graphmem.store.queries import records


def project_ids(store: Store) -> list[str]:
    """Every project the graph holds anything for (a project node, a session or a
    memory), sorted."""
    rows = store.read("evaluator_projects")
    return sorted(row["project_id"] for row in rows if row["project_id"])


# -- the snapshot ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SnapshotPage:
    """Which page of a project's memories to read: up to ``page`` past id
    ``after``, with ``sep`` between the fields of a relation's text."""

    project_id: str
    after: str
    page: int
    sep: str

    def params(self) -> dict[str, Any]:
        return asdict(self)


def memory_texts(store: Store, page: SnapshotPage) -> list[str]:
    """A page of memories as one JSON text each, their relations inside
    (``snapshot_memories_json``, in id order)."""
    return [row["memory"] for row in store.read("snapshot_memories_json", page.params())]


@dataclass(frozen=True, slots=True)
class SnapshotMemory:
    """One row of ``snapshot_memories``: a memory's checked fields, with one of
    the sessions it is linked to (a memory linked to several has a row for each)."""

    id: str
    linked_session: str | None
    linked_project: str | None
    fields: dict[str, Any]
    """The other columns, by name: the node's attributes in the snapshot."""


def memory_columns(store: Store, page: SnapshotPage) -> list[SnapshotMemory]:
    """A page of memories column by column, in id order. Each row's dict becomes
    its record's ``fields``, not a copy: a snapshot holds every memory of the
    project."""
    return [_snapshot_memory(row) for row in store.read("snapshot_memories", page.params())]


def _snapshot_memory(row: dict[str, Any]) -> SnapshotMemory:
    memory_id = row.pop("id")
    session, project = row.pop("linked_session"), row.pop("linked_project")
    return SnapshotMemory(memory_id, session, project, row)


def relation_texts(store: Store, project_id: str, first: str, last: str, sep: str) -> list[str]:
    """The relations leaving memories ``first`` to ``last`` (by id), each as
    ``from sep type sep to [sep project]``: the target's project only when it
    is not ``project_id`` (empty for a target in no project)."""
    params = {"project_id": project_id, "first": first, "last": last, "sep": sep}
    return [row["relation"] for row in store.read("snapshot_relations", params)]


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    state: str | None = "active"
    promotion_enabled: bool = True
    promotion_interval_seconds: float | None = None
    in_project: bool = True
    """Linked to its project node by ``IN_PROJECT``."""


def sessions(store: Store, project_id: str, after: str, page: int) -> list[SessionInfo]:
    """Up to ``page`` sessions of the project past id ``after``, in id order;
    promotion is on unless a session turned it off."""
    params = {"project_id": project_id, "after": after, "page": page}
    return [
        SessionInfo(
            id=row["id"],
            state=row["state"],
            promotion_enabled=row["promotion_enabled"] is not False,
            promotion_interval_seconds=row["promotion_interval_seconds"],
            in_project=bool(row["in_project"]),
        )
        for row in store.read("snapshot_sessions", params)
    ]


@dataclass(frozen=True, slots=True)
class PromotionRecord:
    """One ``:PromotionEvent`` of the project's promotion log."""

    id: str
    memory_id: str
    from_tier: str | None
    to_tier: str | None
    at: float


def promotions(store: Store, project_id: str, after: str, page: int) -> list[PromotionRecord]:
    """Up to ``page`` promotion events of the project past id ``after``, in id order."""
    params = {"project_id": project_id, "after": after, "page": page}
    return records(PromotionRecord, store.read("snapshot_promotion_events", params))


class NearPair(NamedTuple):
    """Two memories the vector index puts close together, with their texts: the
    snapshot holds no content otherwise, and only the judge tells a
    restatement from a changed value."""

    id: str
    other: str
    similarity: float
    content: str = ""
    other_content: str = ""


def near_duplicates(
    store: Store, project_id: str, ids: Sequence[str], *, k: int, threshold: float
) -> list[NearPair]:
    """For each of memories ``ids``, its up to ``k`` nearest neighbours in the
    project at ``threshold`` similarity or more."""
    params = {"project_id": project_id, "ids": ids, "k": k, "threshold": threshold}
    return [NearPair(**row) for row in store.read("evaluator_near_duplicates", params)]


# -- the safe fixes --------------------------------------------------------------


def fix_importance(
    store: Store, project_id: str, items: Sequence[Mapping[str, Any]], now: float
) -> set[str]:
    """Write recomputed importance fields (``items``: id, the use counts the
    snapshot saw, the fields); the ids written, those unchanged since."""
    params = {"project_id": project_id, "items": items, "now": now}
    return _ids(store.write("evaluator_fix_importance", params))


def fill_archived_at(store: Store, project_id: str, ids: Sequence[str], now: float) -> set[str]:
    """Give archived memories without ``archived_at`` their last write's time;
    the ids filled."""
    params = {"project_id": project_id, "ids": ids, "now": now}
    return _ids(store.write("evaluator_fill_archived_at", params))


def archive_orphans(
    store: Store, project_id: str, items: Sequence[Mapping[str, Any]], reason: str, now: float
) -> set[str]:
    """Archive live memories in no session (``items``: id and the tier the
    snapshot saw), with ``reason``; the ids archived."""
    params = {"project_id": project_id, "items": items, "reason": reason, "now": now}
    return _ids(store.write("evaluator_archive_orphans", params))


def _ids(rows: Iterable[dict[str, Any]]) -> set[str]:
    return {row["id"] for row in rows}


# -- reports ---------------------------------------------------------------------


def store_report(store: Store, report: ConsistencyReport, kept: int) -> None:
    """Store ``report`` as a ``:ConsistencyReport`` node: the summary as
    properties (for trends), the findings up to ``kept`` and the whole
    document as JSON texts."""
    counts = report.counts()
    by_code = report.by_code()
    document = report.to_dict()
    document["findings"] = document["findings"][:kept]
    document["findings_truncated"] = len(report.findings) > kept
    store.write(
        "store_consistency_report",
        {
            "id": report.id,
            "project_id": report.project_id,
            "schema_version": SCHEMA_VERSION,
            "created_at": report.created_at,
            "duration_ms": report.duration_ms,
            "memories": report.memories,
            "relations": report.relations,
            "findings": len(report.findings),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "fixes_applied": len(report.fixes["applied"]) if report.fixes else 0,
            "evidence_written": report.evidence["written"] if report.evidence else 0,
            "codes": list(by_code),
            "code_counts": list(by_code.values()),
            "findings_stored": min(len(report.findings), kept),
            "findings_json": json.dumps([finding_to_dict(f) for f in report.findings[:kept]]),
            "metrics_json": json.dumps(report.metrics),
            "report_json": json.dumps(document),
        },
    )


def reports(
    store: Store,
    project_id: str,
    *,
    report_id: str | None,
    before: float | None,
    limit: int,
    full: bool,
) -> list[ConsistencyReport]:
    """Stored reports, newest first: whole, or (without ``full``) the summaries only."""
    params = {
        "project_id": project_id,
        "id": report_id,
        "before": before,
        "limit": limit,
        "full": full,
    }
    return [_report(row) for row in store.read("consistency_reports", params)]


def _report(row: Mapping[str, Any]) -> ConsistencyReport:
    """A stored report: its document when read whole, else its summary properties."""
    if row["report_json"] is not None:
        return ConsistencyReport.from_dict(json.loads(row["report_json"]))
    stored = row["summary"]
    return ConsistencyReport(
        id=stored["id"],
        project_id=stored["project_id"],
        created_at=stored["created_at"],
        memories=stored["memories"],
        relations=stored["relations"],
        duration_ms=stored["duration_ms"],
        findings_total=stored["findings"],
        schema_version=stored["schema_version"],
        stored_summary={
            "memories": stored["memories"],
            "relations": stored["relations"],
            "findings": stored["findings"],
            "errors": stored["errors"],
            "warnings": stored["warnings"],
            "infos": stored["infos"],
            "by_code": dict(zip(stored["codes"], stored["code_counts"], strict=True)),
        },
    )
