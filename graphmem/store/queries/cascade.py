"""Review marks: the dependency edges a change walks, and the marks it writes
and clears (``graphmem.domain.dependencies`` says what they mean)."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.domain.dependencies import Change, Edge, Mark
from graphmem.domain.kinds import RelationType
from graphmem.store import Store


def dependents(store: Store, ids: Sequence[str], project_id: str, now: float) -> list[Edge]:
    """The dependency edges into the memories ``ids``: who rests on each, by
    which relation, and whether that memory is still current at ``now``."""
    rows = store.read("dependents", {"ids": list(ids), "project_id": project_id, "now": now})
    return [Edge(r["from_id"], RelationType(r["type"]), r["id"], r["current"]) for r in rows]


def mark(store: Store, marks: Sequence[Mark], project_id: str, now: float) -> list[str]:
    """Write ``marks``; the ids of the memories marked."""
    rows = store.write(
        "mark_for_review",
        {
            "marks": [
                {
                    "id": m.memory_id,
                    "change": m.cause.change.value,
                    "cause": m.cause.memory_id,
                    "by": m.cause.by_id,
                    "path": [r.value for r in m.path],
                }
                for m in marks
            ],
            "project_id": project_id,
            "now": now,
        },
    )
    return [row["id"] for row in rows]


def expired_unmarked(store: Store, project_id: str, now: float, limit: int) -> list[str]:
    """Up to ``limit`` memories whose validity ended by ``now`` and whose
    dependents were not yet told; each is noted as told."""
    rows = store.write("expired_unmarked", {"project_id": project_id, "now": now, "limit": limit})
    return [row["id"] for row in rows]


def clear(
    store: Store,
    ids: Sequence[str],
    causes: Sequence[str],
    changes: Sequence[Change],
    *,
    kind: str,
    reason: str | None,
    project_id: str,
    now: float,
) -> list[str]:
    """Take the marks of ``ids``, and those ``changes`` to ``causes`` left,
    logged as ``kind`` with ``reason``; the ids whose mark went."""
    rows = store.write(
        "clear_review_marks",
        {
            "ids": list(ids),
            "causes": list(causes),
            "changes": [c.value for c in changes],
            "kind": kind,
            "reason": reason,
            "project_id": project_id,
            "now": now,
        },
    )
    return [row["id"] for row in rows]
