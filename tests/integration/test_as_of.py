"""``as_of`` reads against a replayed history.

A scripted history (writes, supersessions, promotions, activations, rejection,
archival, restore, merge, relate and unrelate, each at a clock time of its
own) is replayed into a real embedded FalkorDB beside a pure Python model of
it. After every step the model records what the current-time reads said (the
tier, status and successor of every memory), and keeps validity and relations
by the documented rules. Then every ``as_of`` answer (memory, memories,
neighborhood, search and knowledgeContext membership) at many times, between
steps and at their exact times, is checked against the model: before the
project existed it is empty, and in the future it is INVALID_INPUT.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from falkordb import FalkorDB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.api import GraphMem
from graphmem.domain.checks import MAX_FUTURE_SKEW_SECONDS
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, InvalidInputError
from graphmem.domain.kinds import Tier
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher

START = 1_800_000_000.0
STEP = 1_000.0
DAY = 86_400.0
WORD = "zebra"
"""In every memory's text, so a full-text search for it can match them all."""


@dataclass
class Held:
    """The model's record of one memory's existence and validity."""

    created: float
    valid_from: float
    valid_to: float | None = None
    closed_by: str | None = None


@dataclass
class Model:
    """What the history says, kept apart from graphmem's own code."""

    memories: dict[str, Held] = field(default_factory=dict)
    relations: dict[tuple[str, str, str], list[list[float | None]]] = field(default_factory=dict)
    """Each edge's (made, removed) intervals; removed is None while it stands."""
    states: list[tuple[float, dict[str, tuple[str, str, str | None]]]] = field(default_factory=list)
    """After each step: its time, and each memory's (tier, status, superseded_by) then."""

    def wrote(self, memory_id: str, at: float, valid_from: float, valid_to: float | None) -> None:
        self.memories[memory_id] = Held(created=at, valid_from=valid_from, valid_to=valid_to)

    def related(self, kind: str, from_id: str, to_id: str, at: float) -> None:
        intervals = self.relations.setdefault((kind, from_id, to_id), [])
        if not intervals or intervals[-1][1] is not None:
            intervals.append([at, None])

    def superseded(self, new_id: str, old_id: str, at: float) -> None:
        self.related("SUPERSEDES", new_id, old_id, at)
        old, new = self.memories[old_id], self.memories[new_id]
        if old.valid_to is None or old.closed_by is not None:
            old.valid_to = max(new.valid_from, old.valid_from)
            old.closed_by = new_id

    def unrelated(self, kind: str, from_id: str, to_id: str, at: float) -> None:
        self.relations[(kind, from_id, to_id)][-1][1] = at
        old = self.memories[to_id]
        if kind == "SUPERSEDES" and old.closed_by == from_id:
            old.valid_to = old.closed_by = None

    def ended(self, memory_id: str, valid_to: float) -> None:
        self.memories[memory_id].valid_to = valid_to
        self.memories[memory_id].closed_by = None

    # -- answers -------------------------------------------------------------

    def state(self, at: float) -> dict[str, tuple[str, str, str | None]]:
        """Every memory as the current-time reads showed it at ``at``."""
        current: dict[str, tuple[str, str, str | None]] = {}
        for time, state in self.states:
            if time <= at:
                current = state
        return current

    def held(self, memory_id: str, at: float) -> bool:
        m = self.memories[memory_id]
        return m.valid_from <= at and (m.valid_to is None or at < m.valid_to)

    def listed(self, at: float) -> set[str]:
        """``memories(asOf)``: written by then, holding then, not archived then."""
        state = self.state(at)
        return {i for i, (tier, _, _) in state.items() if tier != "archived" and self.held(i, at)}

    def searched(self, at: float) -> set[str]:
        """``search(asOf)`` with default filters: also not superseded then."""
        state = self.state(at)
        return {i for i in self.listed(at) if state[i][2] is None}

    def edges(self, at: float) -> set[tuple[str, str, str]]:
        return {
            key
            for key, intervals in self.relations.items()
            for made, removed in intervals
            if made is not None and made <= at and (removed is None or removed > at)
        }

    def neighborhood(self, center: str, depth: int, at: float) -> tuple[set[str], set[tuple]]:
        state = self.state(at)
        if center not in state:
            return set(), set()
        edges = {e for e in self.edges(at) if e[1] in state and e[2] in state}
        nodes, frontier = {center}, {center}
        for _ in range(depth):
            frontier = {
                there
                for _, a, b in edges
                for here, there in ((a, b), (b, a))
                if here in frontier and there not in nodes
            }
            nodes |= frontier
        return nodes, {e for e in edges if e[1] in nodes and e[2] in nodes}


class Replay:
    """Runs each step on graphmem at its own clock time and on the model."""

    def __init__(self, gm: GraphMem, clock: ManualClock) -> None:
        self.gm = gm
        self.clock = clock
        self.model = Model()
        self.names: dict[str, str] = {}
        self.at = START

    def step(self, seconds: float = STEP) -> float:
        self.at += seconds
        self.clock.set(self.at)
        return self.at

    def observe(self) -> None:
        """What the current-time reads say now, recorded as the state at this time."""
        ids = list(self.model.memories)
        state = {
            m.id: (m.tier.value, m.status.value, m.superseded_by)
            for m in self.gm.get_many(ids)
            if m is not None
        }
        self.model.states.append((self.at, state))
        standing = self.model.edges(self.at)
        stored = {
            (r.type.value, r.from_id, r.to_id)
            for relations in self.gm.relations(ids)
            for r in relations
        }
        assert stored == standing, "the model's relations differ from the store's"

    def remember(self, name: str, **fields: Any) -> str:
        at = self.step()
        memory, outcome = self.gm.remember_detailed(
            {"content": f"{name} {WORD} {uuid.uuid4().hex[:6]}", **fields}
        )
        assert outcome.created
        self.names[name] = memory.id
        valid_from = next(
            t for t in (fields.get("valid_from"), fields.get("occurred_at"), at) if t is not None
        )
        self.model.wrote(memory.id, at, valid_from, fields.get("valid_to"))
        if outcome.related_id and outcome.result.value == "superseded":
            self.model.superseded(memory.id, outcome.related_id, at)
        self.observe()
        return memory.id

    def supersede(self, old: str, new: str) -> None:
        at = self.step()
        try:
            self.gm.supersede(self.names[old], self.names[new])
        except ConflictError:  # it would close a SUPERSEDES cycle: nothing was written
            return
        self.model.superseded(self.names[new], self.names[old], at)
        self.observe()

    def relate(self, a: str, b: str) -> None:
        at = self.step()
        self.gm.relate(self.names[a], self.names[b], "RELATED_TO")
        self.model.related("RELATED_TO", self.names[a], self.names[b], at)
        self.observe()

    def unrelate(self, kind: str, a: str, b: str) -> None:
        at = self.step()
        self.gm.unrelate(self.names[a], self.names[b], kind, reason="wrong", removed_by="test")
        self.model.unrelated(kind, self.names[a], self.names[b], at)
        self.observe()

    def end(self, name: str, valid_to: float) -> None:
        self.step()
        self.gm.update(self.names[name], {"valid_to": valid_to})
        self.model.ended(self.names[name], valid_to)
        self.observe()

    def act(self, action: str, *names: str, seconds: float = STEP) -> Any:
        """A lifecycle step whose effect on tiers and statuses the reads observe."""
        self.step(seconds)
        ids = [self.names[n] for n in names]
        result = {
            "approve": lambda: self.gm.approve(*ids),
            "reject": lambda: self.gm.reject(*ids, "not true"),
            "promote": lambda: self.gm.run_promotion("default"),
            "archive": lambda: self.gm.archive_stale(),
            "restore": lambda: self.gm.restore(*ids),
            "merge": lambda: self.gm.merge_memories(*ids),
        }[action]()
        self.observe()
        return result

    # -- checks ----------------------------------------------------------------

    def times(self) -> list[float]:
        """Before the project, at every step and between steps, and up to now."""
        steps = [t for t, _ in self.model.states]
        between = [t + STEP / 2 for t in steps if t + STEP / 2 < self.at]
        return [START - DAY, START, *steps, *between, self.at + 60]

    def check(self, at: float) -> None:
        model = self.model
        state = model.state(at)
        every = list(model.memories)
        for memory_id, then in zip(every, self.gm.get_many(every, as_of=at), strict=True):
            if memory_id not in state:
                assert then is None, (at, memory_id)
                continue
            assert then is not None, (at, memory_id)
            assert (then.tier.value, then.status.value, then.superseded_by) == state[memory_id]
            assert then.valid_to == model.memories[memory_id].valid_to
            assert then.valid_since == model.memories[memory_id].valid_from

        page = self.gm.list(as_of=at, first=200)
        assert {m.id for m in page.items} == model.listed(at), at
        assert all((m.tier.value, m.status.value) == state[m.id][:2] for m in page.items), at
        archived = self.gm.list({"include_archived": True}, as_of=at, first=200)
        assert {m.id for m in archived.items} == {i for i in state if model.held(i, at)}, at

        found = self.gm.search(
            WORD, mode="FULLTEXT", limit=50, depth=0, min_relevance=0.0, as_of=at
        )
        assert {h.memory.id for h in found.hits} == model.searched(at), at
        walked = self.gm.search(WORD, limit=50, depth=2, min_relevance=0.0, as_of=at)
        assert {h.memory.id for h in walked.hits} <= model.searched(at), at
        edges = model.edges(at)
        for hit in walked.hits:
            steps = hit.explanation.path.steps if hit.explanation.path else []
            assert {(s.type.value, s.from_id, s.to_id) for s in steps} <= edges, at

        context = self.gm.knowledge_context(
            f"{WORD} {WORD}", max_results=50, min_relevance=0.0, min_confidence=0.0, as_of=at
        )
        returned = {item.memory.id for item in context.items}
        active = {i for i in model.searched(at) if state[i][1] == "active"}
        assert returned == active, at

        for memory_id in every:
            nodes, edges = model.neighborhood(memory_id, 2, at)
            hood = self.gm.neighborhood(memory_id, depth=2, as_of=at)
            assert {n.id for n in hood.nodes} == nodes, (at, memory_id)
            assert {(e.type.value, e.from_id, e.to_id) for e in hood.edges} == edges


def scripted(replay: Replay) -> None:
    """One of everything an ``as_of`` answer must reconstruct."""
    r = replay
    r.remember("alpha", memory_type="fact", confidence=0.9)
    r.remember("beta", memory_type="decision", occurred_at=START - 3 * DAY)
    r.remember("gamma", source="auto_extracted", confidence=0.9)
    r.relate("alpha", "beta")
    r.remember("delta", memory_type="fact", confidence=0.9)
    r.supersede("alpha", "delta")
    r.act("approve", "gamma")
    r.remember("kappa", suggested_by="agent", memory_type="rule")
    r.remember("eps", source="auto_extracted")
    r.act("reject", "eps")
    r.remember("zeta", confidence=0.05, valid_from=START - DAY)
    r.end("zeta", START + 30 * STEP)
    r.relate("zeta", "delta")
    r.unrelate("SUPERSEDES", "delta", "alpha")
    r.remember("eta", confidence=0.05, valid_to=START + 40 * STEP)
    r.act("merge", "delta", "beta")
    r.act("promote")
    r.act("archive", seconds=3 * DAY)
    r.act("restore", "zeta")
    r.unrelate("RELATED_TO", "alpha", "beta")
    r.remember("theta", confidence=0.9)
    r.supersede("gamma", "theta")


@pytest.fixture
def replay(gm: GraphMem, clock: ManualClock) -> Replay:
    clock.set(START)
    return Replay(gm, clock)


@pytest.mark.slow
def test_every_as_of_answer_matches_the_replayed_history(replay: Replay) -> None:
    scripted(replay)
    tiers = {tier for _, state in replay.model.states for tier, _, _ in state.values()}
    assert {"working", "archived"} <= tiers and len(tiers) >= 3, tiers
    statuses = {s for _, state in replay.model.states for _, s, _ in state.values()}
    assert statuses == {"active", "candidate"}
    for at in replay.times():
        replay.check(at)


def test_as_of_before_the_project_is_empty_and_in_the_future_is_invalid(replay: Replay) -> None:
    scripted(replay)
    gm, now = replay.gm, replay.at
    early = START - 365 * DAY
    assert gm.list(as_of=early).items == []
    assert gm.get_many(list(replay.model.memories), as_of=early) == [None] * len(
        replay.model.memories
    )
    assert gm.search(WORD, min_relevance=0.0, as_of=early).hits == []
    assert gm.knowledge_context(WORD, as_of=early).items == []
    hood = gm.neighborhood(replay.names["alpha"], as_of=early)
    assert hood.nodes == [] and hood.edges == []
    assert gm.list(as_of=now + MAX_FUTURE_SKEW_SECONDS).items  # the allowed skew
    later = now + MAX_FUTURE_SKEW_SECONDS + 1
    calls = {
        "memories": lambda: gm.list(as_of=later),
        "memory": lambda: gm.get(replay.names["alpha"], as_of=later),
        "search": lambda: gm.search(WORD, as_of=later),
        "knowledgeContext": lambda: gm.knowledge_context(WORD, as_of=later),
        "neighborhood": lambda: gm.neighborhood(replay.names["alpha"], as_of=later),
    }
    for name, call in calls.items():
        with pytest.raises(InvalidInputError) as error:
            call()
        assert error.value.field == "as_of", name
        assert "300 seconds in the future" in error.value.message, name


def test_reading_the_past_counts_no_retrieval(replay: Replay) -> None:
    scripted(replay)
    gm = replay.gm
    before = {m.id: m.retrieval_count for m in gm.list(first=200).items}
    assert gm.knowledge_context(WORD, min_relevance=0.0, as_of=replay.at - STEP).items
    assert {m.id: m.retrieval_count for m in gm.list(first=200).items} == before


def test_validity_is_checked_and_names_the_field(gm: GraphMem, clock: ManualClock) -> None:
    now = clock.now()
    with pytest.raises(InvalidInputError) as error:
        gm.remember({"content": "key K1", "valid_from": now - 10, "valid_to": now - 20})
    assert error.value.field == "valid_to"
    with pytest.raises(InvalidInputError) as error:  # an end in the past needs a start given
        gm.remember({"content": "key K1", "valid_to": now - 20})
    assert error.value.field == "valid_to"
    with pytest.raises(InvalidInputError) as error:
        gm.remember({"content": "key K1", "valid_from": now + MAX_FUTURE_SKEW_SECONDS + 5})
    assert error.value.field == "valid_from"
    with pytest.raises(InvalidInputError) as error:
        gm.remember_many([{"content": "a"}, {"content": "b", "occurred_at": now, "valid_to": 1}])
    assert error.value.field == "items[1].valid_to"
    assert gm.list().items == []  # nothing was written
    memory = gm.remember({"content": "key K1", "occurred_at": now - 100})
    assert (memory.valid_since, memory.valid_to) == (now - 100, None)
    with pytest.raises(InvalidInputError) as error:
        gm.update(memory.id, {"valid_to": now - 200})
    assert error.value.field == "valid_to"
    with pytest.raises(InvalidInputError) as error:
        gm.update(memory.id, {"valid_from": now + MAX_FUTURE_SKEW_SECONDS + 5})
    assert error.value.field == "valid_from"
    assert gm.get(memory.id).valid_to is None
    ended = gm.update(memory.id, {"valid_to": now - 50})
    assert ended.valid_to == now - 50


def test_a_memory_from_before_validity_was_kept_reads_as_it_happened(
    gm: GraphMem, store: FalkorStore, clock: ManualClock
) -> None:
    """No migration: a memory without valid_from holds from its occurred_at."""
    memory = gm.remember({"content": f"old {WORD}", "occurred_at": clock.now() - DAY})
    cypher(store, "MATCH (m:Memory {id: $id}) REMOVE m.valid_from", {"id": memory.id})
    assert gm.get(memory.id).valid_since == clock.now() - DAY
    clock.advance(10)
    assert [m.id for m in gm.list(as_of=clock.now() - 5).items] == [memory.id]


# -- random histories -----------------------------------------------------------

ACTIONS = st.lists(
    st.sampled_from(
        [
            "remember",
            "candidate",
            "backdated",
            "supersede",
            "relate",
            "unrelate",
            "end",
            "approve",
            "reject",
            "promote",
            "restore",
        ]
    ),
    min_size=4,
    max_size=14,
)


@pytest.fixture
def fresh_gm(falkordb_server: EmbeddedFalkorDB) -> Iterator[Any]:
    """A factory of GraphMems, each on a graph of its own (one per example)."""
    db = FalkorDB(
        unix_socket_path=str(falkordb_server.socket_path),
        socket_timeout=30.0,
        client_name=falkordb_server.client_name,
    )
    stores: list[FalkorStore] = []

    def make() -> tuple[GraphMem, ManualClock]:
        store = FalkorStore(db, f"test-{uuid.uuid4().hex[:12]}")
        store.setup_schema()
        stores.append(store)
        clock = ManualClock(start=START)
        return GraphMem(store, clock=clock), clock

    yield make
    for store in stores:
        store.drop()
    db.close()


@pytest.mark.slow
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(actions=ACTIONS, picks=st.lists(st.integers(0, 50), min_size=40, max_size=40))
def test_random_histories_answer_as_the_model_says(
    fresh_gm: Any, actions: list[str], picks: list[int]
) -> None:
    gm, clock = fresh_gm()
    r = Replay(gm, clock)
    choice = iter(picks)

    def pick(names: list[str]) -> str:
        return names[next(choice) % len(names)]

    for n, action in enumerate(actions):
        names = list(r.names)
        live = [x for x in names if r.model.state(r.at)[r.names[x]][0] != "archived"]
        if action == "remember" or len(names) < 2:
            r.remember(f"m{n}", confidence=0.9)
        elif action == "candidate":
            r.remember(f"m{n}", source="auto_extracted")
        elif action == "backdated":
            r.remember(f"m{n}", occurred_at=r.at - DAY)
        elif action == "supersede":
            old, new = pick(names), pick(names)
            chain = {(k[1], k[2]) for k in r.model.edges(r.at) if k[0] == "SUPERSEDES"}
            pair = (r.names[old], r.names[new])
            if old != new and pair not in chain and pair[::-1] not in chain:
                r.supersede(old, new)
        elif action == "relate":
            a, b = pick(names), pick(names)
            if a != b and ("RELATED_TO", r.names[a], r.names[b]) not in r.model.edges(r.at):
                r.relate(a, b)
        elif action == "unrelate":
            standing = sorted(r.model.edges(r.at))
            if standing:
                kind, a, b = standing[next(choice) % len(standing)]
                back = {v: k for k, v in r.names.items()}
                r.unrelate(kind, back[a], back[b])
        elif action == "end":
            name = pick(names)
            start = r.model.memories[r.names[name]].valid_from
            r.end(name, max(start, r.at - STEP / 4))
        elif action in ("approve", "reject"):
            candidates = [x for x in live if r.model.state(r.at)[r.names[x]][1] == "candidate"]
            if candidates:
                r.act(action, pick(candidates))
        elif action == "promote":
            r.act("promote")
        elif action == "restore":
            archived = [x for x in names if x not in live]
            if archived:
                r.act("restore", pick(archived))
    for at in r.times():
        r.check(at)


def test_archival_restore_and_rotation_are_logged_so_tiers_read_back(
    gm: GraphMem, clock: ManualClock
) -> None:
    """Rotation (a full session archiving its oldest) logs its moves too."""
    gm.open_session("s", max_items=3)
    ids = []
    for n in range(3):
        clock.advance(STEP)
        ids.append(gm.remember({"content": f"note {n} {WORD}", "session_id": "s"}).id)
    clock.advance(STEP)
    gm.remember({"content": f"note 3 {WORD}", "session_id": "s"})
    now = {m.id: m for m in gm.get_many(ids)}
    rotated = [m for m in now.values() if m.tier is Tier.ARCHIVED]
    assert rotated and all(m.archive_reason for m in rotated), now
    for memory in rotated:
        (before,) = gm.get_many([memory.id], as_of=memory.archived_at - 1)
        (then,) = gm.get_many([memory.id], as_of=memory.archived_at)
        assert before is not None and before.tier is memory.archived_from
        assert before.archived_at is None
        assert then is not None and then.tier is Tier.ARCHIVED
        assert (then.archived_at, then.archive_reason) == (
            memory.archived_at,
            memory.archive_reason,
        )
        clock.advance(STEP)
        gm.restore(memory.id)
        (archived,) = gm.get_many([memory.id], as_of=clock.now() - 1)
        (restored,) = gm.get_many([memory.id], as_of=clock.now())
        assert archived is not None and archived.tier is Tier.ARCHIVED
        assert restored is not None and restored.tier is memory.archived_from


def test_a_write_that_supersedes_closes_the_older_validity(
    egm: GraphMem, clock: ManualClock
) -> None:
    """The writer's SUPERSEDED outcome closes validity like an explicit supersede,
    and the vector path of search answers as of then too."""
    old = egm.remember({"content": "The API server listens on port 8000"})
    clock.advance(STEP)
    new, outcome = egm.remember_detailed({"content": "The API server listens on port 9000"})
    assert (outcome.result.value, outcome.related_id) == ("superseded", old.id)
    assert egm.get(old.id).valid_to == new.valid_since == new.created_at
    before = {h.memory.id for h in egm.search("API server port", as_of=new.created_at - 1).hits}
    after = {h.memory.id for h in egm.search("API server port", as_of=new.created_at).hits}
    assert (before, after) == ({old.id}, {new.id})
    clock.advance(STEP)
    egm.unrelate(new.id, old.id, "SUPERSEDES", reason="both hold", removed_by="test")
    assert egm.get(old.id).valid_to is None
    both = {h.memory.id for h in egm.search("API server port", as_of=clock.now()).hits}
    assert both == {old.id, new.id}


def test_now_a_memory_whose_given_end_has_passed_is_not_retrieved(
    gm: GraphMem, clock: ManualClock
) -> None:
    """Current-time retrieval leaves out what has stopped holding unless superseded
    ones are asked for; listing still shows it, with its end."""
    now = clock.now()
    ended = gm.remember(
        {"content": f"the staging key {WORD} is S1", "valid_from": now - DAY, "valid_to": now - 1}
    )
    live = gm.remember({"content": f"the staging host {WORD} is s1.internal"})
    found = {h.memory.id for h in gm.search(WORD, mode="FULLTEXT", min_relevance=0.0).hits}
    assert found == {live.id}
    kept = gm.search(WORD, mode="FULLTEXT", min_relevance=0.0, filters={"include_superseded": True})
    assert {h.memory.id for h in kept.hits} == {live.id, ended.id}
    context = gm.knowledge_context(WORD, min_relevance=0.0, record_access=False)
    assert {i.memory.id for i in context.items} == {live.id}
    assert {m.id for m in gm.list().items} == {live.id, ended.id}
    assert gm.get(ended.id).valid_to == now - 1


def test_search_as_of_walks_the_relations_of_then(gm: GraphMem, clock: ManualClock) -> None:
    seed = gm.remember({"content": f"the {WORD} crossing needs a permit"})
    other = gm.remember({"content": "permits are issued by the county office"})
    clock.advance(STEP)
    gm.relate(seed.id, other.id, "RELATED_TO")
    related_at = clock.now()
    clock.advance(STEP)
    gm.unrelate(seed.id, other.id, "RELATED_TO", reason="unrelated", removed_by="test")
    removed_at = clock.now()

    def reached(at: float) -> dict[str, list[tuple[str, str]]]:
        hits = gm.search(WORD, depth=1, min_relevance=0.0, as_of=at).hits
        return {
            h.memory.id: [(s.from_id, s.to_id) for s in h.explanation.path.steps]
            for h in hits
            if h.explanation.path
        }

    assert reached(related_at - 1) == {}
    assert reached(related_at) == {other.id: [(seed.id, other.id)]}
    assert reached(removed_at - 1) == {other.id: [(seed.id, other.id)]}
    assert reached(removed_at) == {}
