"""``graphmem.services.cascade``: the walk from a change to the memories resting
on it, over the in-memory store (``tests/fakes``): bounded by the depth, ended
by a cycle, meeting each memory once, passing through what is no longer
current, and taking its marks back when the change is undone.
``tests/contract/test_fake_store.py`` holds the fake to the real backends."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from graphmem.domain.clock import ManualClock
from graphmem.domain.dependencies import MAX_DEPTH, Change, Changed
from graphmem.domain.viewer import acting_as
from graphmem.services.cascade import Cascade
from graphmem.services.telemetry import Event
from tests.fakes import FakeStore, StagingRecord, basics
from tests.fakes.store import READS, WRITES

NOW = 1_800_000_000.0
ENABLES, CONSTRAINS, RELATED_TO = "ENABLES", "CONSTRAINS", "RELATED_TO"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(start=NOW)


@pytest.fixture
def fake() -> FakeStore:
    return FakeStore()


def cascade(fake: FakeStore, clock: ManualClock, depth: int = 2) -> Cascade:
    return Cascade(basics(fake, clock, cascade_depth=depth))


def seed(
    fake: FakeStore, edges: Sequence[tuple[str, str, str]], **memories: dict[str, object]
) -> None:
    """The memories the edges name (with ``memories``' properties), then the edges."""
    names = dict.fromkeys(n for a, _, b in edges for n in (a, b)) | dict.fromkeys(memories)
    for name in names:
        fake.add(name, **memories.get(name, {}))
    for a, type, b in edges:
        fake.relate(a, type, b)


def marks(fake: FakeStore) -> dict[str, tuple[str | None, str | None, list[str] | None]]:
    """Each marked memory's (change, cause, path)."""
    return {
        m.id: (m.review_change, m.review_cause, m.review_path)
        for m in fake.memories.values()
        if m.review_change is not None
    }


CHAIN = [("base", ENABLES, "d1"), ("d1", CONSTRAINS, "d2"), ("d2", ENABLES, "d3")]


class TestDepth:
    @pytest.mark.parametrize(
        ("depth", "reached"), [(1, ["d1"]), (2, ["d1", "d2"]), (3, ["d1", "d2", "d3"])]
    )
    def test_a_mark_travels_as_many_hops_as_the_depth(
        self, fake: FakeStore, clock: ManualClock, depth: int, reached: list[str]
    ):
        seed(fake, CHAIN)
        ids = cascade(fake, clock, depth).changed(
            [Changed("base", Change.ARCHIVED)], project_id="default"
        )
        assert ids == reached
        assert sorted(marks(fake)) == reached
        assert fake.ran.count("dependents") == depth

    def test_the_path_names_each_relation_from_the_cause(self, fake: FakeStore, clock: ManualClock):
        seed(fake, CHAIN)
        cascade(fake, clock, 3).changed(
            [Changed("base", Change.SUPERSEDED, "new")], project_id="default"
        )
        assert marks(fake)["d3"] == ("superseded", "base", [ENABLES, CONSTRAINS, ENABLES])
        assert fake.memories["d3"].review_by == "new"
        assert fake.memories["d3"].review_marked_at == NOW

    def test_depth_zero_marks_nothing_and_asks_nothing(self, fake: FakeStore, clock: ManualClock):
        seed(fake, CHAIN)
        assert (
            cascade(fake, clock, 0).changed(
                [Changed("base", Change.FORGOTTEN)], project_id="default"
            )
            == []
        )
        assert fake.ran == [] and marks(fake) == {}

    def test_the_walk_stops_where_nothing_rests(self, fake: FakeStore, clock: ManualClock):
        seed(fake, CHAIN)
        cascade(fake, clock, MAX_DEPTH).changed(
            [Changed("base", Change.ARCHIVED)], project_id="default"
        )
        # three hops find edges, the fourth finds none, and there is no fifth
        assert fake.ran.count("dependents") == 4


class TestEachMemoryOnce:
    def test_a_cycle_ends_where_it_closes(self, fake: FakeStore, clock: ManualClock):
        seed(fake, [("a", ENABLES, "b"), ("b", ENABLES, "c"), ("c", ENABLES, "a")])
        ids = cascade(fake, clock, MAX_DEPTH).changed(
            [Changed("a", Change.ARCHIVED)], project_id="default"
        )
        assert ids == ["b", "c"]
        assert "a" not in marks(fake)
        assert fake.ran.count("dependents") == 3

    def test_a_memory_reached_twice_is_marked_once_by_the_first_path(
        self, fake: FakeStore, clock: ManualClock
    ):
        seed(
            fake,
            [
                ("base", ENABLES, "x"),
                ("base", CONSTRAINS, "y"),
                ("x", CONSTRAINS, "z"),
                ("y", ENABLES, "z"),
            ],
        )
        ids = cascade(fake, clock).changed([Changed("base", Change.ARCHIVED)], project_id="default")
        assert sorted(ids) == ["x", "y", "z"] and len(ids) == 3
        assert marks(fake)["z"] == ("archived", "base", [ENABLES, CONSTRAINS])
        assert [r.memory_id for r in fake.staging].count("z") == 1

    def test_two_changes_at_once_each_mark_their_own(self, fake: FakeStore, clock: ManualClock):
        seed(fake, [("a", ENABLES, "shared"), ("b", ENABLES, "shared"), ("b", ENABLES, "own")])
        cascade(fake, clock).changed(
            [Changed("a", Change.ARCHIVED), Changed("b", Change.EXPIRED)], project_id="default"
        )
        assert marks(fake) == {
            "shared": ("archived", "a", [ENABLES]),
            "own": ("expired", "b", [ENABLES]),
        }


class TestWhatCarriesAMark:
    def test_related_to_carries_none(self, fake: FakeStore, clock: ManualClock):
        seed(fake, [("base", RELATED_TO, "near"), ("near", ENABLES, "beyond")])
        assert (
            cascade(fake, clock).changed([Changed("base", Change.ARCHIVED)], project_id="default")
            == []
        )

    @pytest.mark.parametrize(
        "state",
        [
            {"tier": "archived"},
            {"superseded_by": "newer"},
            {"merged_into": "survivor"},
            {"valid_to": NOW - 1.0},
            {"valid_to": NOW},
        ],
    )
    def test_a_memory_no_longer_current_is_passed_through_unmarked(
        self, fake: FakeStore, clock: ManualClock, state: dict[str, object]
    ):
        seed(fake, [("base", ENABLES, "old"), ("old", CONSTRAINS, "after")], old=state)
        ids = cascade(fake, clock).changed([Changed("base", Change.ARCHIVED)], project_id="default")
        assert ids == ["after"]
        assert marks(fake) == {"after": ("archived", "base", [ENABLES, CONSTRAINS])}

    def test_a_validity_still_open_is_current(self, fake: FakeStore, clock: ManualClock):
        seed(fake, [("base", ENABLES, "later")], later={"valid_to": NOW + 1.0})
        assert cascade(fake, clock).changed(
            [Changed("base", Change.ARCHIVED)], project_id="default"
        ) == ["later"]

    def test_another_project_is_not_walked(self, fake: FakeStore, clock: ManualClock):
        seed(
            fake,
            [("base", ENABLES, "mine"), ("base", ENABLES, "theirs")],
            theirs={"project_id": "other"},
        )
        assert cascade(fake, clock).changed(
            [Changed("base", Change.ARCHIVED)], project_id="default"
        ) == ["mine"]

    def test_every_agent_is_walked(self, fake: FakeStore, clock: ManualClock):
        seed(
            fake,
            [("base", ENABLES, "private")],
            private={"visibility": "private", "agent_id": "a2"},
        )
        with acting_as("a1"):
            ids = cascade(fake, clock).changed(
                [Changed("base", Change.ARCHIVED)], project_id="default"
            )
        assert ids == ["private"]


class TestUndo:
    def changed(self, fake: FakeStore, clock: ManualClock) -> Cascade:
        seed(
            fake,
            [("base", ENABLES, "d1"), ("d1", ENABLES, "d2"), ("rule", CONSTRAINS, "ruled")],
        )
        service = cascade(fake, clock)
        service.changed(
            [Changed("base", Change.ARCHIVED), Changed("rule", Change.SUPERSEDED, "rule2")],
            project_id="default",
        )
        clock.advance(60.0)
        return service

    def test_marks_go_when_their_cause_is_undone(self, fake: FakeStore, clock: ManualClock):
        service = self.changed(fake, clock)
        cleared = service.undone(["base"], [Change.ARCHIVED], project_id="default")
        assert sorted(cleared) == ["d1", "d2"]
        assert marks(fake) == {"ruled": ("superseded", "rule", [CONSTRAINS])}
        assert (
            fake.memories["d1"].review_path is None and fake.memories["d1"].review_marked_at is None
        )
        assert sorted(
            (r.memory_id, r.kind, r.before, r.at) for r in fake.staging if r.kind == "cleared"
        ) == [
            ("d1", "cleared", "base", NOW + 60.0),
            ("d2", "cleared", "base", NOW + 60.0),
        ]

    def test_undoing_another_change_to_the_cause_takes_nothing(
        self, fake: FakeStore, clock: ManualClock
    ):
        service = self.changed(fake, clock)
        assert service.undone(["base"], [Change.SUPERSEDED], project_id="default") == []
        assert sorted(marks(fake)) == ["d1", "d2", "ruled"]

    def test_undoing_twice_clears_once(self, fake: FakeStore, clock: ManualClock):
        service = self.changed(fake, clock)
        service.undone(["base"], [Change.ARCHIVED], project_id="default")
        assert service.undone(["base"], [Change.ARCHIVED], project_id="default") == []
        assert [r.kind for r in fake.staging].count("cleared") == 2

    def test_an_agent_clears_only_what_it_may_read(self, fake: FakeStore, clock: ManualClock):
        seed(
            fake,
            [("base", ENABLES, "open"), ("base", ENABLES, "hidden")],
            hidden={"visibility": "private", "agent_id": "a2"},
        )
        service = cascade(fake, clock)
        service.changed([Changed("base", Change.ARCHIVED)], project_id="default")
        with acting_as("a1"):
            assert service.undone(["base"], [Change.ARCHIVED], project_id="default") == ["open"]
        assert sorted(marks(fake)) == ["hidden"]

    def test_a_reviewer_confirms_by_id(self, fake: FakeStore, clock: ManualClock):
        service = self.changed(fake, clock)
        assert service.clear(["ruled"], [], "confirmed", "still holds", "default") == ["ruled"]
        (record,) = (r for r in fake.staging if r.kind == "confirmed")
        assert record == StagingRecord(
            "ruled", "default", "confirmed", "still holds", "rule", None, NOW + 60.0
        )


class TestAnnouncements:
    def test_the_marked_and_the_cleared_are_announced(self, fake: FakeStore, clock: ManualClock):
        seed(fake, CHAIN)
        service = cascade(fake, clock)
        events: list[Event] = []
        service.telemetry.subscribe(events.append)
        service.changed([Changed("base", Change.ARCHIVED)], project_id="default")
        service.undone(["base"], [Change.ARCHIVED], project_id="default")
        assert [(e.fields["kind"], sorted(e.fields["memory_ids"])) for e in events] == [
            ("marked", ["d1", "d2"]),
            ("confirmed", ["d1", "d2"]),
        ]

    def test_nothing_marked_is_not_announced(self, fake: FakeStore, clock: ManualClock):
        seed(fake, [("base", RELATED_TO, "near")])
        service = cascade(fake, clock)
        events: list[Event] = []
        service.telemetry.subscribe(events.append)
        service.changed([Changed("base", Change.ARCHIVED)], project_id="default")
        assert events == [] and "mark_for_review" not in fake.ran


class TestTheFakeRefuses:
    def test_a_statement_it_does_not_run(self, fake: FakeStore, clock: ManualClock):
        with pytest.raises(NotImplementedError, match="'expired_unmarked'"):
            cascade(fake, clock).expired(project_id="default")

    def test_a_write_run_as_a_read(self, fake: FakeStore):
        with pytest.raises(NotImplementedError, match="'mark_for_review' writes"):
            fake.read("mark_for_review", {"marks": [], "project_id": "default", "now": NOW})

    def test_a_missing_parameter(self, fake: FakeStore):
        with pytest.raises(KeyError, match="dependents: parameters missing: now"):
            fake.read("dependents", {"ids": [], "project_id": "default"})

    def test_an_edge_to_a_memory_it_does_not_hold(self, fake: FakeStore):
        fake.add("a")
        with pytest.raises(KeyError, match="'b'"):
            fake.relate("a", ENABLES, "b")

    @pytest.mark.parametrize("name", sorted({**READS, **WRITES}))
    def test_each_statement_it_runs_is_a_real_one(self, name: str):
        from graphmem.store.statements import Statements

        assert name in Statements("falkordb").names() & Statements("neo4j").names()
