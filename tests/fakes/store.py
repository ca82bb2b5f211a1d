"""A ``Store`` held in Python dicts, for service tests where a database adds
nothing but start-up time.

It runs a chosen few named statements, each as a small function over the
fake's memories and edges that returns rows keyed as the ``.cypher`` file's
``RETURN`` aliases are:

- ``dependents`` (read): one hop of a change's walk;
- ``mark_for_review`` (write): a change's marks, each logged as ``marked``;
- ``clear_review_marks`` (write): marks confirmed away or cleared by an undo.

That is what ``graphmem.services.cascade.Cascade`` asks of a store, so its
walk, its bounds and its undo run here without a database. Any other name
raises ``NotImplementedError`` naming it: a test of a service that needs more
fails at once rather than passing on a statement nobody wrote. A statement
is also refused when a parameter its file uses is missing, as a backend
refuses it. ``tests/contract/test_fake_store.py`` runs one scenario through
``Cascade`` on this fake and on both real backends and asserts the same
results, which is what keeps these functions honest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from graphmem.domain.dependencies import CARRIERS
from graphmem.domain.viewer import with_viewer
from graphmem.store import Row
from graphmem.store.dialect import Dialect
from graphmem.store.statements import Statements

_PARAM = re.compile(r"\$(\w+)")
"""A parameter in a statement's text."""


@dataclass
class FakeMemory:
    """The properties of a ``Memory`` node that the supported statements read or
    write, named as the graph names them."""

    id: str
    project_id: str = "default"
    tier: str | None = None
    superseded_by: str | None = None
    merged_into: str | None = None
    valid_to: float | None = None
    visibility: str | None = None
    agent_id: str | None = None
    review_change: str | None = None
    review_cause: str | None = None
    review_by: str | None = None
    review_path: list[str] | None = None
    review_marked_at: float | None = None

    def current(self, now: float) -> bool:
        """Live, not archived, superseded, merged away or past its validTo
        (``dependents.cypher``)."""
        return (
            (self.tier or "working") != "archived"
            and self.superseded_by is None
            and self.merged_into is None
            and (self.valid_to is None or self.valid_to > now)
        )

    def visible_to(self, viewer: str | None) -> bool:
        """``{{visible(m)}}`` (``cypher/fragments/visible.cypher``)."""
        return (
            viewer is None or (self.visibility or "shared") == "shared" or (self.agent_id == viewer)
        )

    def unmark(self) -> None:
        """Remove the review properties, as ``REMOVE d.review_...`` does."""
        self.review_change = self.review_cause = self.review_by = None
        self.review_path = None
        self.review_marked_at = None


@dataclass(frozen=True)
class FakeEdge:
    """A relation ``(from_id)-[type]->(to_id)``."""

    from_id: str
    type: str
    to_id: str


@dataclass(frozen=True)
class StagingRecord:
    """A ``StagingEvent`` node the marking statements create (its id is left out:
    each backend spells ``toString($now)`` its own way)."""

    memory_id: str
    project_id: str
    kind: str
    signal: str | None
    before: str | None
    after: str | None
    at: float


Statement = Callable[["FakeStore", Mapping[str, Any]], list[Row]]


@dataclass
class FakeStore:
    """The ``Store`` port over in-memory dicts; seed it with ``add`` and ``relate``."""

    dialect: Dialect = Dialect.FALKORDB
    """Which statement files the parameter check reads; no supported statement differs."""
    memories: dict[str, FakeMemory] = field(default_factory=dict)
    edges: list[FakeEdge] = field(default_factory=list)
    staging: list[StagingRecord] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    """The statement names run, in order, for a test that counts round trips."""

    # -- seeding ------------------------------------------------------------

    def add(self, memory_id: str, **properties: Any) -> FakeMemory:
        """A memory with ``properties`` (``FakeMemory``'s fields), replacing one of that id."""
        memory = FakeMemory(memory_id, **properties)
        self.memories[memory_id] = memory
        return memory

    def relate(self, from_id: str, type: str, to_id: str) -> None:
        """An edge between two memories already added (as ``relate`` requires)."""
        missing = [i for i in (from_id, to_id) if i not in self.memories]
        if missing:
            raise KeyError(f"relate: no memory {missing[0]!r} in the fake store")
        self.edges.append(FakeEdge(from_id, type, to_id))

    # -- the port -----------------------------------------------------------

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a supported read statement."""
        if name in WRITES:
            raise NotImplementedError(f"FakeStore: {name!r} writes; run it with write()")
        return self._run(READS, name, params)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a supported statement (a write may read, as on a real store)."""
        return self._run({**READS, **WRITES}, name, params)

    def setup_schema(self) -> None:
        """Nothing to index in a dict."""

    def close(self) -> None:
        """Nothing to release."""

    def _run(
        self, table: Mapping[str, Statement], name: str, params: Mapping[str, Any] | None
    ) -> list[Row]:
        statement = table.get(name)
        if statement is None:
            runs = ", ".join(sorted(table))
            raise NotImplementedError(
                f"FakeStore does not run the statement {name!r} (it runs {runs}): "
                "test this with a real store, or add the statement to tests/fakes/store.py"
            )
        given = with_viewer(params)
        missing = sorted(parameters(self.dialect, name) - set(given))
        if missing:
            raise KeyError(f"{name}: parameters missing: {', '.join(missing)}")
        self.ran.append(name)
        return statement(self, given)


@cache
def parameters(dialect: Dialect, name: str) -> frozenset[str]:
    """The ``$parameters`` a statement's file (fragments included) uses."""
    return frozenset(_PARAM.findall(Statements(dialect.value)[name]))


# -- the statements ----------------------------------------------------------


def _dependents(store: FakeStore, p: Mapping[str, Any]) -> list[Row]:
    """``dependents.cypher``: the dependency edges out of ``$ids``, within the project."""
    carriers = {c.value for c in CARRIERS}
    rows = []
    for edge in store.edges:
        source, target = store.memories[edge.from_id], store.memories[edge.to_id]
        if (
            edge.type in carriers
            and edge.from_id in p["ids"]
            and source.project_id == target.project_id == p["project_id"]
        ):
            rows.append(
                {
                    "from_id": edge.from_id,
                    "type": edge.type,
                    "id": edge.to_id,
                    "current": target.current(p["now"]),
                }
            )
    return sorted(rows, key=lambda r: (r["from_id"], r["id"], r["type"]))


def _mark_for_review(store: FakeStore, p: Mapping[str, Any]) -> list[Row]:
    """``mark_for_review.cypher``: each mark replaces the memory's last, logged as ``marked``."""
    rows: list[Row] = []
    for mark in p["marks"]:
        memory = store.memories.get(mark["id"])
        if memory is None or memory.project_id != p["project_id"]:
            continue
        memory.review_change, memory.review_cause = mark["change"], mark["cause"]
        memory.review_by, memory.review_path = mark["by"], list(mark["path"])
        memory.review_marked_at = p["now"]
        store.staging.append(
            StagingRecord(
                memory.id, p["project_id"], "marked", mark["change"], None, mark["cause"], p["now"]
            )
        )
        rows.append({"id": memory.id})
    return rows


def _clear_review_marks(store: FakeStore, p: Mapping[str, Any]) -> list[Row]:
    """``clear_review_marks.cypher``: the marks of ``$ids``, or those a change of
    ``$changes`` to one of ``$causes`` left, among what ``$viewer`` may read."""
    rows: list[Row] = []
    for memory in store.memories.values():
        if not _clears(memory, p):
            continue
        store.staging.append(
            StagingRecord(
                memory.id,
                p["project_id"],
                p["kind"],
                p["reason"],
                memory.review_cause,
                None,
                p["now"],
            )
        )
        memory.unmark()
        rows.append({"id": memory.id})
    return rows


def _clears(memory: FakeMemory, p: Mapping[str, Any]) -> bool:
    """Whether ``clear_review_marks`` takes ``memory``'s mark."""
    chosen = memory.id in p["ids"] or (
        memory.review_cause in p["causes"] and memory.review_change in p["changes"]
    )
    return (
        memory.project_id == p["project_id"]
        and memory.review_change is not None
        and chosen
        and memory.visible_to(p["viewer"])
    )


READS: Mapping[str, Statement] = {"dependents": _dependents}
"""The read statements the fake runs, by name."""
WRITES: Mapping[str, Statement] = {
    "mark_for_review": _mark_for_review,
    "clear_review_marks": _clear_review_marks,
}
"""The write statements the fake runs, by name."""
