"""Validity in time, and a memory as it stood at a past time: pure rules.

Two times meet in an ``as_of`` answer (docs/validity.md):

- transaction time, when graphmem learnt something: a memory exists from its
  ``created_at``; a tier, a status or a relation is what the event logs say
  it was at the time;
- valid time, when what a memory records held in the world: from
  ``valid_from`` (its ``occurred_at``, or its write) up to, not including,
  ``valid_to`` (given, or the start of the memory that superseded it), as
  graphmem knows it now.

A memory is in an ``as_of`` listing, search or context at ``T`` when it was
written by ``T`` and held at ``T``, with its tier and status at ``T``. Nothing
here touches the store or the clock: callers pass the history rows and times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.checks import check_not_future, epoch_seconds
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Status, Tier
from graphmem.domain.models import Memory

TIER_MOVES = frozenset({"promoted", "archived", "restored", "merged"})
"""History kinds that move a memory between tiers (each names both tiers)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One row of ``memory_history``: a logged step in a memory's life."""

    kind: str
    at: float
    before: str | None = None
    after: str | None = None
    other_id: str | None = None
    """The memory that superseded it, or that it was merged into."""
    until: float | None = None
    """When a SUPERSEDES relation into it was removed (``None``: still there)."""
    reason: str | None = None


def check_as_of(value: Any, now: float, *, field: str = "as_of") -> float:
    """``as_of`` as epoch seconds: any past time (before the project existed it
    simply finds nothing), but no later than the clock skew a write's
    ``occurred_at`` may have past ``now``."""
    try:
        at = epoch_seconds(value)
    except ValueError as exc:
        raise InvalidInputError(f"{field}: {exc}", field=field) from None
    check_not_future(at, now, field=field)
    return at


def histories(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Change]]:
    """``memory_history`` rows grouped per memory, oldest first."""
    grouped: dict[str, list[Change]] = {}
    for row in rows:
        fields = {k: v for k, v in row.items() if k != "memory_id"}
        if fields.get("at") is None:
            fields["at"] = 0.0  # a relation from before relations kept their time
        grouped.setdefault(row["memory_id"], []).append(Change(**fields))
    for changes in grouped.values():
        changes.sort(key=lambda c: c.at)
    return grouped


def existed_at(memory: Memory, at: float) -> bool:
    """Whether graphmem had been told of the memory by ``at``."""
    return memory.created_at <= at


def _tier(name: str | None) -> Tier:
    """A tier a move logged; every tier move names both, so a missing one is a
    corrupt history row, refused as an unknown tier would be."""
    if name is None:
        raise ValueError("a tier move without its tiers")
    return Tier(name)


def memory_at(memory: Memory, changes: Sequence[Change], at: float) -> Memory:
    """The memory as it stood at ``at``: its tier, status, archival and
    supersession then, from its logged changes (oldest first). Text, counters
    and scores are as they are now: edits are not versioned."""
    moves = [c for c in changes if c.kind in TIER_MOVES]
    past = [c for c in moves if c.at <= at]
    tier = _tier_at(memory, moves, past)
    update: dict[str, Any] = {"tier": tier, **_archival(tier, past)}
    promoted = [c.at for c in past if c.kind == "promoted"]
    update["promoted_at"] = promoted[-1] if promoted else None
    update.update(_activation(memory, changes, at))
    update["superseded_by"] = _superseded_by(changes, at)
    return memory.model_copy(update=update)


def _tier_at(memory: Memory, moves: Sequence[Change], past: Sequence[Change]) -> Tier:
    """Where the last move by then put it; before its first move, where that
    move took it from; never moved, where it is now."""
    if past:
        return _tier(past[-1].after)
    if moves:
        return _tier(moves[0].before)
    return memory.tier


def _archival(tier: Tier, past: Sequence[Change]) -> dict[str, Any]:
    """The archive fields then: those of the move that archived it, none when
    it was not archived, and the present ones for a memory archived before its
    first logged move."""
    if tier is not Tier.ARCHIVED:
        return {
            "archived_at": None,
            "archived_from": None,
            "archive_reason": None,
            "merged_into": None,
        }
    if not past:
        return {}
    archived = past[-1]
    return {
        "archived_at": archived.at,
        "archived_from": Tier(archived.before) if archived.before else None,
        "archive_reason": archived.reason,
        "merged_into": archived.other_id if archived.kind == "merged" else None,
    }


def _activation(memory: Memory, changes: Sequence[Change], at: float) -> dict[str, Any]:
    """Its status then as far as staging goes: a candidate until its logged
    activation, or, with none logged, until the activation time it carries."""
    activations = [c for c in changes if c.kind == "activated"]
    if activations:
        done = [c for c in activations if c.at <= at]
        return {
            "status": Status.ACTIVE if done else Status.CANDIDATE,
            "activated_at": done[-1].at if done else None,
        }
    if memory.activated_at is not None and memory.activated_at > at:
        return {"status": Status.CANDIDATE, "activated_at": None}
    return {}


def _superseded_by(changes: Sequence[Change], at: float) -> str | None:
    """The memory that superseded it by then through a relation still standing
    then (the latest such, when there were several)."""
    standing = [
        c
        for c in changes
        if c.kind == "superseded" and c.at <= at and (c.until is None or c.until > at)
    ]
    return standing[-1].other_id if standing else None
