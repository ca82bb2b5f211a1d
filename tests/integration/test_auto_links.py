"""Links graphmem writes itself at ingest (``ProjectSettings.auto_links``), on a
real embedded FalkorDB: only when the project turned them on, with their
rationale, bounded in number, and in the same statement as the memory."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import redis
from neo4j.exceptions import ClientError

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import AutoLink, RelationType
from graphmem.domain.models import Memory
from graphmem.services.autolinks import ENTITY_FAN_OUT, MAX_ENTITY_LINKS
from graphmem.store import Row, Store


def say(gm: GraphMem, content: str, session_id: str, **extra: Any) -> Memory:
    project_id = extra.pop("project_id", None)
    item = {"content": content, "session_id": session_id, **extra}
    return gm.remember(item, project_id=project_id)


def related(gm: GraphMem, memory_id: str, project_id: str | None = None) -> dict[str, str]:
    """The RELATED_TO edges leaving ``memory_id``: the other end's id -> rationale."""
    (edges,) = gm.relations([memory_id], project_id=project_id)
    return {
        e.to_id: e.rationale or ""
        for e in edges
        if e.type is RelationType.RELATED_TO and e.from_id == memory_id
    }


def test_no_links_unless_the_project_turns_them_on(gm: GraphMem, clock: ManualClock) -> None:
    assert gm.project_settings().auto_links == []
    first = say(gm, "Alice asked for the Berlin report", "s1")
    clock.advance(60)
    second = say(gm, "We sent Alice the Berlin report", "s1")
    assert related(gm, second.id) == {}
    assert related(gm, first.id) == {}


def test_previous_turn_links_the_latest_earlier_memory_of_the_session(
    gm: GraphMem, clock: ManualClock
) -> None:
    gm.set_project_settings(auto_links=["previous_turn"])
    first = say(gm, "user: where is the deploy script", "s1")
    clock.advance(60)
    other = say(gm, "user: unrelated thread", "s2")
    clock.advance(60)
    second = say(gm, "assistant: in tools/deploy.sh", "s1")
    assert related(gm, second.id) == {first.id: "previous turn of session s1"}
    assert related(gm, other.id) == {}  # the only memory of its session
    (edge,) = [e for e in gm.relations([second.id])[0] if e.to_id == first.id]
    assert edge.weight == 1.0


def test_previous_turn_in_a_batch_follows_occurred_at(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["previous_turn"])
    now = clock.now()
    earlier = say(gm, "turn one", "chat", occurred_at=now - 300)
    # Given out of order: the links follow when each turn happened.
    three, two = gm.remember_many(
        [
            {"content": "turn three", "session_id": "chat", "occurred_at": now - 100},
            {"content": "turn two", "session_id": "chat", "occurred_at": now - 200},
        ]
    )
    assert related(gm, two) == {earlier.id: "previous turn of session chat"}
    assert related(gm, three) == {two: "previous turn of session chat"}
    assert related(gm, earlier.id) == {}


def test_same_entity_links_memories_naming_it(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=[AutoLink.SAME_ENTITY])
    alice = say(gm, "The report goes to Alice every Friday", "a")
    starts = say(gm, "Alice is the name of a sentence's first word here", "b")
    clock.advance(60)
    other = say(gm, "The cache TTL is thirty seconds", "c")
    clock.advance(60)
    new = say(gm, "We asked Alice about the cache", "d")
    # 'Alice' starting a sentence is not a named entity: no link to that one.
    assert related(gm, new.id) == {alice.id: "both mention 'Alice'"}
    assert starts.id not in related(gm, new.id) and other.id not in related(gm, new.id)
    (edge,) = gm.relations([new.id])[0]
    assert edge.weight == 0.5


def test_same_entity_fan_out_is_bounded(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["same_entity"])
    older = []
    for n in range(ENTITY_FAN_OUT + 2):
        older.append(say(gm, f"note {n}: we met Bob again", f"s{n}").id)
        clock.advance(60)
    new = say(gm, "Yesterday Bob called", "z")
    links = related(gm, new.id)
    # The most recent ENTITY_FAN_OUT memories naming Bob, no more.
    assert set(links) == set(older[-ENTITY_FAN_OUT:])
    # Two memories per entity, and one naming every entity: more candidates
    # than a memory may link to.
    names = [f"Site{n}x" for n in range(MAX_ENTITY_LINKS)]
    gm.remember_many(
        [{"content": f"visit {name} copy {copy}"} for name in names for copy in (1, 2)]
    )
    clock.advance(60)
    every = say(gm, "we planned " + " and ".join(names), "w")
    assert len(related(gm, every.id)) == MAX_ENTITY_LINKS


def test_both_kinds_on_one_pair_join_their_rationales(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["same_entity", "previous_turn"])
    first = say(gm, "user: I moved to Lisbon", "s")
    clock.advance(60)
    second = say(gm, "assistant: how do you like Lisbon", "s")
    assert related(gm, second.id) == {first.id: "previous turn of session s; both mention 'Lisbon'"}


def test_settings_are_per_project(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["previous_turn"], project_id="on")
    a = say(gm, "one", "s", project_id="on")
    b = say(gm, "one", "s", project_id="off")
    clock.advance(1)
    a2 = say(gm, "two", "s", project_id="on")
    b2 = say(gm, "two", "s", project_id="off")
    assert related(gm, a2.id, "on") == {a.id: "previous turn of session s"}
    assert related(gm, b2.id, "off") == {} and related(gm, b.id, "off") == {}
    assert gm.project_settings(project_id="off").auto_links == []


def test_turning_links_off_again(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["previous_turn"])
    say(gm, "one", "s")
    clock.advance(1)
    assert gm.set_project_settings(auto_links=[]).auto_links == []
    two = say(gm, "two", "s")
    assert related(gm, two.id) == {}


def test_a_bad_setting_names_the_field_and_writes_nothing(
    gm: GraphMem, graph_snapshot: Callable[[], Any]
) -> None:
    before = graph_snapshot()
    with pytest.raises(InvalidInputError) as caught:
        gm.set_project_settings(auto_links=["next_turn"])
    assert caught.value.field.startswith("auto_links")
    with pytest.raises(InvalidInputError) as unknown:
        gm.set_project_settings({"colour": "blue"})
    assert unknown.value.field == "colour"
    assert graph_snapshot() == before


class FailingLinks:
    """The real store, with the batch statement's links made unstorable: the
    statement fails at its link step, after it created the memories."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        if name == "remember_many" and params and params["links"]:
            params = copy.deepcopy(dict(params))
            params["links"][-1]["weight"] = {"a map": "is not a property value"}
        return self._store.write(name, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_links_are_written_with_the_memory_or_not_at_all(
    store: Store, clock: ManualClock, graph_snapshot: Callable[[], Any]
) -> None:
    gm = GraphMem(FailingLinks(store), clock=clock)
    gm.set_project_settings(auto_links=["previous_turn"])
    say(gm, "first turn", "s")
    clock.advance(1)
    before = graph_snapshot()
    with pytest.raises((redis.ResponseError, ClientError)):  # FalkorDB's, Neo4j's refusal
        say(gm, "second turn", "s")
    assert graph_snapshot() == before


def test_same_entity_links_within_one_batch(gm: GraphMem, clock: ManualClock) -> None:
    gm.set_project_settings(auto_links=["same_entity"])
    now = clock.now()
    first, second, third = gm.remember_many(
        [
            {"content": "we flew to Porto in May", "occurred_at": now - 300},
            {"content": "the hotel in Porto was loud", "occurred_at": now - 200},
            {"content": "nothing about any city", "occurred_at": now - 100},
        ]
    )
    assert related(gm, second) == {first: "both mention 'Porto'"}
    assert related(gm, first) == {} and related(gm, third) == {}
