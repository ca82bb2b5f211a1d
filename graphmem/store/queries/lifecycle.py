"""A memory's way through the tiers: staging (candidate to active, or
rejected), promotion runs, archival, restores and the archive's expiry, each
move logged beside the memory by its own statement."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.results import ArchiveItem, Candidate
from graphmem.store import Store
from graphmem.store.queries import first, records
from graphmem.store.queries.memories import memories_of


def _ids(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ``id`` column: the memories a statement moved, in its order."""
    return [row["id"] for row in rows]


# -- staging -------------------------------------------------------------------


def activate(
    store: Store, items: Sequence[tuple[str, str]], project_id: str, now: float
) -> list[str]:
    """candidate -> active for each (id, signal), each logged; the ids activated
    (one already active is left alone)."""
    rows = store.write(
        "activate_candidates",
        {
            "items": [
                {"id": memory_id, "signal": signal, "event_id": new_id()}
                for memory_id, signal in items
            ],
            "project_id": project_id,
            "now": now,
        },
    )
    return _ids(rows)


def reject(store: Store, ids: Sequence[str], reason: str, project_id: str, now: float) -> list[str]:
    """Archive the candidates ``ids`` with ``reason``; the ids rejected."""
    rows = store.write(
        "reject_candidates",
        {"ids": list(ids), "reason": reason, "project_id": project_id, "now": now},
    )
    return _ids(rows)


# -- promotion -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Promotable:
    """A memory a promotion run may move, scored in the database."""

    memory: Memory
    score: float
    constrains: bool
    """It constrains another memory (a constraint is kept out of some tiers)."""
    threshold: float
    """The importance it needs: its tag's, or the run's lowered by age."""
    sessions: int
    """The sessions that used it, its own among them."""


def _promotable(rows: Iterable[Mapping[str, Any]]) -> list[Promotable]:
    return [
        Promotable(
            memory_from_fields(row["memory"]),
            row["score"],
            row["constrains"],
            row["threshold"],
            row["sessions"],
        )
        for row in rows
    ]


def session_candidates(
    store: Store,
    session_id: str,
    project_id: str,
    *,
    tiers: Sequence[Tier],
    threshold: float,
    limit: int,
    now: float,
    rules: Mapping[str, Any],
) -> list[Promotable]:
    """The session's memories in ``tiers`` at or above their threshold, best
    first, at most ``limit``; ``rules`` are the retention rules and the
    scorer's weights as the statement takes them."""
    rows = store.read(
        "evaluate_session",
        {
            "project_id": project_id,
            "session_id": session_id,
            "tiers": [t.value for t in tiers],
            "threshold": threshold,
            "limit": limit,
            "now": now,
            **rules,
        },
    )
    return _promotable(rows)


def episodic_candidates(
    store: Store,
    project_id: str,
    *,
    threshold: float,
    limit: int,
    now: float,
    rules: Mapping[str, Any],
) -> list[Promotable]:
    """The project's episodic memories that earned a long-term tier, best first."""
    rows = store.read(
        "evaluate_episodic",
        {"project_id": project_id, "threshold": threshold, "limit": limit, "now": now, **rules},
    )
    return _promotable(rows)


def _move(c: Candidate) -> dict[str, Any]:
    """One move as ``promote_memories`` takes it: the tiers, the event's id, and
    the score's breakdown, stored on the memory and on its promotion event."""
    components = c.breakdown.components
    fields = {f"importance_{x.name}": x.contribution for x in components}
    fields["importance"] = c.breakdown.total
    return {
        "id": c.memory.id,
        "event_id": new_id(),
        "from_tier": c.memory.tier.value,
        "to_tier": c.to_tier.value,
        "score": c.score,
        "reason": c.reason,
        "importance_fields": fields,
        "component_names": [x.name for x in components],
        "component_values": [x.value for x in components],
        "component_contributions": [x.contribution for x in components],
    }


def promote(
    store: Store,
    candidates: Sequence[Candidate],
    project_id: str,
    *,
    run_id: str,
    run: Mapping[str, Any] | None,
    trigger: str,
    now: float,
) -> set[str]:
    """Move each candidate one tier up, and record the run (its session, start
    and threshold, when given) in the same statement; the ids that moved (one
    moved or deleted since it was evaluated does not)."""
    rows = store.write(
        "promote_memories",
        {
            "moves": [_move(c) for c in candidates],
            "project_id": project_id,
            "run_id": run_id,
            "run": dict(run) if run is not None else None,
            "trigger": trigger,
            "now": now,
        },
    )
    return set(first(rows, "moved", []))


def finish_run(
    store: Store,
    session_id: str,
    project_id: str,
    *,
    run_id: str,
    rotated: Sequence[str],
    now: float,
) -> None:
    """Record on the session what the run ``run_id`` left: the working memories
    still there and those it rotated out."""
    store.write(
        "finish_promotion_run",
        {
            "project_id": project_id,
            "session_id": session_id,
            "run_id": run_id,
            "now": now,
            "rotated_ids": rotated,
        },
    )


def record_session_use(
    store: Store, ids: Sequence[str], session_id: str, project_id: str
) -> list[str]:
    """Note that ``session_id`` used the memories ``ids``; the ids newly noted."""
    rows = store.write(
        "record_session_use",
        {"ids": list(ids), "session_id": session_id, "project_id": project_id},
    )
    return _ids(rows)


def working_count(store: Store, session_id: str, project_id: str) -> int:
    """The session's memories in the working tier that the viewer may read."""
    rows = store.read("count_working", {"project_id": project_id, "session_id": session_id})
    return int(first(rows, "working", 0))


def rotate(
    store: Store, session_id: str, project_id: str, *, count: int, reason: str, now: float
) -> list[str]:
    """Archive the session's ``count`` oldest working memories with ``reason``;
    the ids archived."""
    rows = store.write(
        "rotate_session",
        {
            "project_id": project_id,
            "session_id": session_id,
            "count": count,
            "reason": reason,
            "now": now,
        },
    )
    return _ids(rows)


# -- archival ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stale:
    """A memory of a tier unused for too long and scoring low (``archive_candidates``)."""

    id: str
    tier: str
    score: float


@dataclass(frozen=True, slots=True)
class Expired:
    """An archived memory past the archive's expiry, as its export line holds it."""

    memory: Mapping[str, Any]
    """Its properties, as stored."""
    relations: list[Mapping[str, Any]]
    """Its relations, each with its type, ends and properties."""

    @property
    def id(self) -> str:
        return str(self.memory["id"])


def stale(
    store: Store,
    tier: Tier,
    project_id: str,
    *,
    stale_before: float,
    below: float,
    limit: int,
    now: float,
    scoring: Mapping[str, Any],
) -> list[Stale]:
    """The memories of ``tier`` unused since ``stale_before`` whose importance,
    scored with ``scoring``, is below ``below``: lowest first, at most ``limit``."""
    rows = store.read(
        "archive_candidates",
        {
            "project_id": project_id,
            "tier": tier.value,
            "stale_before": stale_before,
            "below": below,
            "limit": limit,
            "now": now,
            **scoring,
        },
    )
    return records(Stale, rows)


def archive(store: Store, items: Sequence[ArchiveItem], project_id: str, now: float) -> list[str]:
    """Archive each item's memory with its reason, if it is still in the item's
    tier; the ids archived."""
    rows = store.write(
        "archive_memories",
        {
            "project_id": project_id,
            "items": [
                {"id": i.memory_id, "tier": i.tier.value, "score": i.score, "reason": i.reason}
                for i in items
            ],
            "now": now,
        },
    )
    return _ids(rows)


def restore(
    store: Store,
    memory: Memory,
    project_id: str,
    *,
    importance_fields: Mapping[str, Any],
    reason: str | None,
    now: float,
) -> Memory | None:
    """The archived ``memory`` back in the tier it came from, rescored with
    ``importance_fields`` unless its counts changed meanwhile; ``None`` when it
    is not archived (or not there)."""
    rows = store.write(
        "restore_memory",
        {
            "id": memory.id,
            "project_id": project_id,
            "importance_fields": importance_fields,
            "access_count": memory.access_count,
            "feedback_count": memory.feedback_count,
            "reason": reason,
            "now": now,
        },
    )
    found = memories_of(rows)
    return found[0] if found else None


def expired(store: Store, project_id: str, *, expired_before: float, limit: int) -> list[Expired]:
    """The memories archived before ``expired_before``, oldest first, with their relations."""
    rows = store.read(
        "expired_archived",
        {"project_id": project_id, "expired_before": expired_before, "limit": limit},
    )
    return records(Expired, rows)


def purge(
    store: Store,
    ids: Sequence[str],
    project_id: str,
    *,
    expired_before: float,
    export_file: str,
    reason: str,
    now: float,
) -> list[str]:
    """Delete the archived memories ``ids`` still expired, each deletion logged
    with the export that holds it; the ids deleted."""
    rows = store.write(
        "purge_archived",
        {
            "project_id": project_id,
            "items": [{"id": memory_id, "event_id": new_id()} for memory_id in ids],
            "expired_before": expired_before,
            "export_file": export_file,
            "reason": reason,
            "now": now,
        },
    )
    return _ids(rows)
