"""The fake store (``tests/fakes``) against the real ones: one scenario runs
through the same ``Cascade`` on the fake, on the embedded FalkorDB and on the
test Neo4j, and each must give the same rows, marks and staging steps. The
fake side needs no database, so a change to a supported statement that the
fake does not follow fails here, on both backends, rather than letting the
unit tests pass on a store that no longer behaves like the real one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.viewer import acting_as
from graphmem.services.cascade import Cascade
from graphmem.store import Store
from tests.conftest import cypher
from tests.fakes import FakeStore, basics

NOW = 1_800_000_000.0
EXPIRES = NOW + 60.0
CHANGED_AT = NOW + 120.0
"""When the scenario's changes happen: ``old`` stopped being valid a minute before."""
UNDONE_AT = CHANGED_AT + 60.0
ENABLES, CONSTRAINS, RELATED_TO = "ENABLES", "CONSTRAINS", "RELATED_TO"

EDGES = [
    ("base", ENABLES, "d1"),
    ("d1", CONSTRAINS, "d2"),
    ("d2", ENABLES, "d3"),
    ("d1", ENABLES, "base"),
    ("base", RELATED_TO, "near"),
    ("near", ENABLES, "beyond"),
    ("base", ENABLES, "old"),
    ("old", CONSTRAINS, "after"),
    ("base", CONSTRAINS, "hidden"),
    ("rule", CONSTRAINS, "ruled"),
]
"""A chain longer than the depth (``d3`` is three hops out), a cycle back to
the cause, a RELATED_TO edge, a memory past its validTo in the middle of a
path, a memory private to another agent, and a second, unrelated change."""
NAMES = list(dict.fromkeys(n for a, _, b in EDGES for n in (a, b)))
EXPIRING = {"old"}
PRIVATE = {"hidden": "a2"}
CHANGES = [Changed("base", Change.ARCHIVED), Changed("rule", Change.SUPERSEDED, "near")]

Mark = tuple[str | None, str | None, str | None, list[str] | None, float | None]
"""(change, cause, by, path, marked_at), with memory names for ids."""
Step = tuple[str | None, str | None, str | None, str | None, str | None, float | None]
"""(memory, kind, signal, before, after, at) of a staging step, with names for ids."""
KINDS = ["marked", "cleared", "confirmed"]


@dataclass
class Subject:
    """One store with the scenario in it, and how to look at what it holds."""

    store: Store
    ids: dict[str, str]
    """Scenario name to the memory id this store gave it."""
    marks: Callable[[], dict[str, Mark]]
    steps: Callable[[], list[Step]]

    def name(self, memory_id: str | None) -> str | None:
        """The scenario name of ``memory_id`` (``None`` stays ``None``)."""
        names = {i: n for n, i in self.ids.items()}
        return None if memory_id is None else names.get(memory_id, memory_id)

    def names(self, memory_ids: list[str]) -> list[str]:
        """The scenario names of ``memory_ids``, sorted."""
        return sorted(self.name(i) or i for i in memory_ids)

    def cascade(self, clock: ManualClock) -> Cascade:
        return Cascade(basics(self.store, clock, cascade_depth=2))

    def changes(self) -> list[Changed]:
        return [
            Changed(self.ids[c.memory_id], c.change, c.by_id and self.ids[c.by_id]) for c in CHANGES
        ]


def fake_subject(clock: ManualClock) -> Subject:
    """The scenario seeded straight into the fake's dicts."""
    fake = FakeStore()
    for name in NAMES:
        fake.add(
            name,
            valid_to=EXPIRES if name in EXPIRING else None,
            agent_id=PRIVATE.get(name),
            visibility="private" if name in PRIVATE else None,
        )
    for a, type, b in EDGES:
        fake.relate(a, type, b)

    def marks() -> dict[str, Mark]:
        return {
            m.id: (m.review_change, m.review_cause, m.review_by, m.review_path, m.review_marked_at)
            for m in fake.memories.values()
            if m.review_change is not None
        }

    def steps() -> list[Step]:
        return sorted(
            (s.memory_id, s.kind, s.signal, s.before, s.after, s.at) for s in fake.staging
        )

    return Subject(fake, {n: n for n in NAMES}, marks, steps)


def real_subject(store: Store, clock: ManualClock) -> Subject:
    """The scenario written the way an agent writes it, through ``GraphMem``."""
    gm = GraphMem(store, clock=clock)
    ids: dict[str, str] = {}
    for name in NAMES:
        fields: dict[str, object] = {"content": f"Decision {name}: kept apart from the others."}
        if name in EXPIRING:
            fields["valid_to"] = EXPIRES
        if name in PRIVATE:
            fields |= {"agent_id": PRIVATE[name], "visibility": "private"}
        ids[name] = gm.remember(fields).id
    for a, type, b in EDGES:
        gm.relate(ids[a], ids[b], type)
    subject = Subject(store, ids, dict, list)

    def marks() -> dict[str, Mark]:
        rows = cypher(
            store,
            "MATCH (m:Memory) WHERE m.review_change IS NOT NULL RETURN m.id, m.review_change,"
            " m.review_cause, m.review_by, m.review_path, m.review_marked_at",
        )
        return {
            subject.name(i) or i: (change, subject.name(cause), subject.name(by), path, at)
            for i, change, cause, by, path, at in rows
        }

    def steps() -> list[Step]:
        rows = cypher(
            store,
            "MATCH (e:StagingEvent)-[:CHANGED]->(:Memory) WHERE e.kind IN $kinds"
            " RETURN e.memory_id, e.kind, e.signal, e.before, e.after, e.at",
            {"kinds": KINDS},
        )
        return sorted(
            (subject.name(m), kind, signal, subject.name(before), subject.name(after), at)
            for m, kind, signal, before, after, at in rows
        )

    subject.marks, subject.steps = marks, steps
    return subject


@pytest.fixture(params=["fake", "falkordb", "neo4j"])
def subject(request: pytest.FixtureRequest) -> Iterator[tuple[Subject, ManualClock]]:
    """The scenario on one store, the clock at the time of the changes."""
    clock = ManualClock(start=NOW)
    if request.param == "fake":
        seeded = fake_subject(clock)
    else:
        seeded = real_subject(request.getfixturevalue(f"{request.param}_store"), clock)
    clock.set(CHANGED_AT)
    yield seeded, clock


MARKED = {
    "d1": ("archived", "base", None, [ENABLES], CHANGED_AT),
    "hidden": ("archived", "base", None, [CONSTRAINS], CHANGED_AT),
    "ruled": ("superseded", "rule", "near", [CONSTRAINS], CHANGED_AT),
    "d2": ("archived", "base", None, [ENABLES, CONSTRAINS], CHANGED_AT),
    "after": ("archived", "base", None, [ENABLES, CONSTRAINS], CHANGED_AT),
}
"""What the scenario's changes mark at depth 2."""


def test_one_hop_gives_the_same_rows(subject: tuple[Subject, ManualClock]):
    seeded, _ = subject
    rows = seeded.store.read(
        "dependents",
        {
            "ids": [seeded.ids["base"], seeded.ids["old"]],
            "project_id": "default",
            "now": CHANGED_AT,
        },
    )
    assert sorted(
        (seeded.name(r["from_id"]), r["type"], seeded.name(r["id"]), r["current"]) for r in rows
    ) == [
        ("base", CONSTRAINS, "hidden", True),
        ("base", ENABLES, "d1", True),
        ("base", ENABLES, "old", False),
        ("old", CONSTRAINS, "after", True),
    ]
    assert [sorted(r) for r in rows] == [["current", "from_id", "id", "type"]] * 4


def test_a_change_marks_the_same_memories(subject: tuple[Subject, ManualClock]):
    seeded, clock = subject
    assert seeded.marks() == {}
    ids = seeded.cascade(clock).changed(seeded.changes(), project_id="default")
    assert seeded.names(ids) == sorted(MARKED)
    assert seeded.marks() == MARKED
    assert seeded.steps() == sorted(
        (name, "marked", change, None, cause, at)
        for name, (change, cause, _, _, at) in MARKED.items()
    )


def test_an_undo_clears_the_same_marks(subject: tuple[Subject, ManualClock]):
    seeded, clock = subject
    service = seeded.cascade(clock)
    service.changed(seeded.changes(), project_id="default")
    clock.set(UNDONE_AT)
    with acting_as("a1"):
        cleared = service.undone([seeded.ids["base"]], [Change.ARCHIVED], project_id="default")
    assert seeded.names(cleared) == ["after", "d1", "d2"]
    assert seeded.marks() == {n: MARKED[n] for n in ("hidden", "ruled")}
    cleared_steps = [s for s in seeded.steps() if s[1] == "cleared"]
    assert cleared_steps == [
        (name, "cleared", "the change was undone", "base", None, UNDONE_AT)
        for name in ("after", "d1", "d2")
    ]


def test_a_marked_memory_missing_is_skipped(subject: tuple[Subject, ManualClock]):
    seeded, _ = subject
    mark: dict[str, object] = {
        "id": "no-such-memory",
        "change": "archived",
        "cause": "x",
        "by": None,
        "path": [],
    }
    rows = seeded.store.write(
        "mark_for_review", {"marks": [mark], "project_id": "default", "now": CHANGED_AT}
    )
    assert rows == [] and seeded.marks() == {}
