"""Deliveries: the record of knowledgeContext answers read back a page at a
time, the memories they gave as they stand now, the pruning and the counts.
The record itself is written by the retrieval count's statements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.domain.deliveries import DeliveryFilter
from graphmem.domain.models import Memory, memory_from_fields
from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Stored:
    """A ``:Delivery`` node's properties: one answer as it was given."""

    id: str
    project_id: str
    at: float
    agent_id: str | None
    session_id: str | None
    hint: str | None
    """The hint's text, where the project keeps it."""
    hint_sha256: str
    memory_ids: list[str] | None
    scores: list[float] | None
    """The score of each memory given, by rank, beside ``memory_ids``."""


def page(
    store: Store,
    selected: DeliveryFilter,
    *,
    after: tuple[float, str] | None,
    limit: int,
    project_id: str,
) -> list[Stored]:
    """At most ``limit`` of the project's deliveries ``selected`` names, newest
    first, after the one at ``after`` (its time and id) where given."""
    after_at, after_id = after if after else (None, None)
    rows = store.read(
        "deliveries",
        {
            "project_id": project_id,
            "agent_id": selected.agent_id,
            "session_id": selected.session_id,
            "memory_id": selected.memory_id,
            "since": selected.since.timestamp() if selected.since else None,
            "until": selected.until.timestamp() if selected.until else None,
            "changed": selected.changed,
            "after_at": after_at,
            "after_id": after_id,
            "limit": limit,
        },
    )
    return [Stored(**row["delivery"]) for row in rows]


def given(store: Store, ids: Sequence[str], project_id: str) -> dict[str, Memory | None]:
    """Of the memories ``ids`` name, each one still there, as the viewer may read
    it, or ``None`` when it is not the viewer's to read; an id of a memory gone
    is left out."""
    rows = store.read("delivered_memories", {"ids": list(ids), "project_id": project_id})
    return {
        row["id"]: memory_from_fields(row["memory"]) if row["readable"] else None for row in rows
    }


def prune(
    store: Store, *, keep_count: int | None, before: float | None, limit: int, project_id: str
) -> int:
    """Delete at most ``limit`` of the project's deliveries past its bounds (all but
    the ``keep_count`` newest, those older than ``before``); how many went."""
    rows = store.write(
        "prune_deliveries",
        {"project_id": project_id, "keep_count": keep_count, "before": before, "limit": limit},
    )
    return int(rows[0]["pruned"]) if rows else 0


@dataclass(frozen=True, slots=True)
class Count:
    project_id: str
    deliveries: int


def stored_per_project(store: Store) -> dict[str, int]:
    """How many deliveries each project holds (a project with none is left out)."""
    return {
        count.project_id: int(count.deliveries)
        for count in records(Count, store.read("count_deliveries"))
    }
