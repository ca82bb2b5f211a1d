"""Consolidation: the memories it may group, what links them, the groups
already consolidated, and the write that consolidates one group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.consolidation import Candidate
from graphmem.domain.models import memory_from_fields
from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Applied:
    """A group fingerprint already consolidated, and into which memory (``id``)."""

    fingerprint: str
    id: str


@dataclass(frozen=True, slots=True)
class GroupWritten:
    """A consolidated memory as written, and the sources it superseded."""

    id: str
    sources: list[str]


def candidates(
    store: Store, project_id: str, *, tiers: Sequence[str], after: str, page: int
) -> list[Candidate]:
    """Up to ``page`` memories of ``tiers`` with an id past ``after``, in id
    order, each with whether it constrains another and whether a failure report
    taught it."""
    rows = store.read(
        "consolidation_candidates",
        {"project_id": project_id, "after": after, "page": page, "tiers": list(tiers)},
    )
    return [
        Candidate(
            memory_from_fields(row["memory"]),
            constrains=bool(row["constrains"]),
            taught=bool(row["taught"]),
        )
        for row in rows
    ]


def related(store: Store, project_id: str, limit: int) -> list[tuple[str, str]]:
    """The pairs of memories a relation joins that consolidation groups by."""
    rows = store.read("consolidation_related", {"project_id": project_id, "limit": limit})
    return [(row["id"], row["other"]) for row in rows]


def applied(store: Store, project_id: str, fingerprints: Sequence[str]) -> list[Applied]:
    """Which of ``fingerprints`` were consolidated already, and into which memory."""
    rows = store.read(
        "consolidated_groups", {"project_id": project_id, "fingerprints": list(fingerprints)}
    )
    return records(Applied, rows)


def consolidate(
    store: Store,
    project_id: str,
    *,
    session_id: str,
    sources: Sequence[Mapping[str, Any]],
    props: Mapping[str, Any],
    rationale: str,
    archive_reason: str,
    now: float,
) -> GroupWritten | None:
    """Create the consolidated memory ``props``, superseding and archiving each
    source (as its version says it was read); ``None`` when one changed since."""
    rows = store.write(
        "consolidate_group",
        {
            "project_id": project_id,
            "session_id": session_id,
            "sources": sources,
            "props": props,
            "rationale": rationale,
            "archive_reason": archive_reason,
            "now": now,
        },
    )
    return GroupWritten(rows[0]["id"], list(rows[0]["sources"])) if rows else None
