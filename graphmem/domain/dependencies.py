"""What rests on what: which relations carry a dependency, what a change to a
memory does to the memories resting on it, and the review mark it leaves.

A memory that stops being current (superseded, forgotten, archived, expired,
rejected in review, or contradicted by a newer one) does not take what rests
on it down with it: each current memory that rests on it, up to a few hops
away, is *marked* as needing review, with the change and the path that reached
it. The mark is not an invalidation. The memory stays where it is, every read
shows the mark, and a reviewer confirms it still holds (the mark goes), or
supersedes or archives it.

Direction: ``(a)-[:ENABLES]->(b)``: ``a`` makes ``b`` possible, so ``b`` rests
on ``a``. ``(r)-[:CONSTRAINS]->(x)``: the rule ``r`` limits ``x``, and ``x`` was
shaped by it, so ``x`` rests on ``r``. ``RELATED_TO`` is an association, not a
dependency, and ``SUPERSEDES`` is the change itself; neither carries a mark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from graphmem.domain.kinds import RelationType

CARRIERS: tuple[RelationType, ...] = (RelationType.ENABLES, RelationType.CONSTRAINS)
"""The relation types a dependency travels along, from source to target."""
DEFAULT_DEPTH = 2
"""How many hops a mark travels by default: what rests directly on the change,
and what rests on that. Further out the link to the change is too thin to
bother a reviewer with; ``cascade_depth`` changes it (0 turns marking off)."""
MAX_DEPTH = 10
UNNAMED = "another memory"
"""How a reason names a memory its reader may not read."""


class Change(StrEnum):
    """How a memory stopped being current."""

    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"
    ARCHIVED = "archived"
    EXPIRED = "expired"
    """Its ``valid_to`` passed."""
    REJECTED = "rejected"
    """A reviewer rejected it (it was a candidate)."""
    CONTRADICTED = "contradicted"
    """A newer memory was written that may contradict it."""


_SAID: Mapping[Change, str] = {
    Change.SUPERSEDED: "superseded by {by}",
    Change.FORGOTTEN: "forgotten",
    Change.ARCHIVED: "archived",
    Change.EXPIRED: "no longer valid (its validTo passed)",
    Change.REJECTED: "rejected in review",
    Change.CONTRADICTED: "possibly contradicted by {by}",
}


@dataclass(frozen=True, slots=True)
class Changed:
    """One memory that stopped being current, and the memory that did it, if any."""

    memory_id: str
    change: Change
    by_id: str | None = None


class ReviewMark(BaseModel):
    """Why a current memory needs review: what it rests on changed."""

    model_config = ConfigDict(frozen=True)

    change: Change
    cause_id: str | None
    """The memory that changed; ``None`` when the reader may not read it."""
    by_id: str | None = None
    """The memory that superseded or contradicts the cause, if one did."""
    path: list[RelationType]
    """The relations from the cause to the marked memory, in order."""
    marked_at: float

    @property
    def reason(self) -> str:
        """The mark in one sentence: "rests on m1 (ENABLES), superseded by m2 on 2026-03-02"."""
        via = " then ".join(r.value for r in self.path)
        said = _SAID[self.change].format(by=self.by_id or UNNAMED)
        day = datetime.fromtimestamp(self.marked_at, UTC).date().isoformat()
        return f"rests on {self.cause_id or UNNAMED} ({via}), {said} on {day}"


@dataclass(frozen=True, slots=True)
class Edge:
    """One dependency edge as the store gives it: ``id`` rests on ``from_id``."""

    from_id: str
    type: RelationType
    id: str
    current: bool


@dataclass(frozen=True, slots=True)
class Mark:
    """A mark to write: ``memory_id`` rests on ``cause`` by ``path``."""

    memory_id: str
    cause: Changed
    path: tuple[RelationType, ...]


class Walk:
    """A change's walk along dependency edges, one hop at a time (pure: the
    service reads each hop's edges out of ``frontier`` and hands them to ``step``).

    Each memory is met once, so a cycle ends where it closes; the first path
    that reaches a memory names it. A memory that is not current is passed
    through (what rests on it may still be current), never marked.
    """

    def __init__(self, changed: Sequence[Changed]) -> None:
        self._trail: dict[str, tuple[Changed, tuple[RelationType, ...]]] = {
            c.memory_id: (c, ()) for c in changed
        }
        self.frontier: list[str] = list(self._trail)
        self.marks: list[Mark] = []

    def step(self, edges: Iterable[Edge]) -> None:
        """Take one hop: the edges out of the current frontier."""
        frontier = []
        for edge in edges:
            if edge.id in self._trail or edge.from_id not in self._trail:
                continue
            cause, path = self._trail[edge.from_id]
            self._trail[edge.id] = (cause, (*path, edge.type))
            frontier.append(edge.id)
            if edge.current:
                self.marks.append(Mark(edge.id, cause, (*path, edge.type)))
        self.frontier = frontier
