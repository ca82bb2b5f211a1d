"""Each operation is all or nothing.

Every operation below writes through exactly one statement, so the store's
own atomicity is the operation's. The failures are injected into that
statement's last step (a parameter the database rejects only once the earlier
steps have run), and the graph must then be exactly as it was before.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import redis
from neo4j.exceptions import ClientError

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Status, Tier
from graphmem.store import Row, Store
from tests.conftest import cypher

Mutation = Callable[[dict[str, Any]], None]
NOT_A_PROPERTY = {"a map": "is not a property value"}
"""Both databases refuse to store this (nor make a vector of it), at the step
that tries to."""
REFUSED = (redis.ResponseError, ClientError)
"""How FalkorDB and Neo4j refuse a statement."""


CASCADE = {"mark_for_review", "clear_review_marks"}
"""What an operation writes after its own statement: the review marks its change
leaves or takes away (graphmem.services.cascade), a step of its own."""


class FaultyStore:
    """The real store, recording the writes and sabotaging a named one."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.writes: list[str] = []
        self.sabotage: dict[str, Mutation] = {}

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        self.writes.append(name)
        if name in self.sabotage:
            params = copy.deepcopy(dict(params or {}))
            self.sabotage[name](params)
        return self._store.write(name, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@pytest.fixture
def faulty(store: Store) -> FaultyStore:
    return FaultyStore(store)


@pytest.fixture
def fgm(faulty: FaultyStore, clock: ManualClock) -> GraphMem:
    return GraphMem(faulty, clock=clock)


@pytest.fixture
def efgm(faulty: FaultyStore, clock: ManualClock, embedder: Any) -> GraphMem:
    return GraphMem(faulty, clock=clock, embedder=embedder)


def embedding_of(store: Store, memory_id: str) -> list[float] | None:
    rows = cypher(store, "MATCH (m:Memory {id: $id}) RETURN m.embedding", {"id": memory_id})
    return rows[0][0] if rows else None


def _spoil_last_row_embedding(params: dict[str, Any]) -> None:
    params["rows"][-1]["embedding"] = NOT_A_PROPERTY


def _spoil_last_merge(params: dict[str, Any]) -> None:
    params["merges"][-1]["event_id"] = NOT_A_PROPERTY


class TestRemember:
    ITEMS = [
        {"content": "the billing service retries webhooks three times", "tags": ["billing"]},
        {"content": "staging deploys need the VPN", "memory_type": "convention"},
        {"content": "payments are reconciled nightly at 02:00 UTC", "memory_type": "fact"},
    ]

    def test_memories_and_their_embeddings_are_one_write(
        self, efgm: GraphMem, faulty: FaultyStore, store: Store
    ):
        ids = efgm.remember_many(self.ITEMS)
        assert faulty.writes == ["remember_many"]
        for memory_id in ids:
            vector = embedding_of(store, memory_id)
            assert vector is not None and len(vector) == 384

    def test_a_failure_at_the_last_embedding_writes_nothing(
        self, efgm: GraphMem, faulty: FaultyStore, graph_snapshot: Callable[[], Any]
    ):
        efgm.remember({"content": "an earlier memory that must stay as it is"})
        before = graph_snapshot()
        faulty.sabotage["remember_many"] = _spoil_last_row_embedding
        with pytest.raises(REFUSED):
            efgm.remember_many(self.ITEMS)
        assert graph_snapshot() == before
        # The same batch, unsabotaged, is written whole.
        del faulty.sabotage["remember_many"]
        assert len(set(efgm.remember_many(self.ITEMS))) == 3

    def test_a_failure_at_the_last_merge_undoes_creates_and_earlier_merges(
        self, fgm: GraphMem, faulty: FaultyStore, graph_snapshot: Callable[[], Any]
    ):
        first = fgm.remember(
            {"content": "the cache TTL is 300 seconds", "source": "auto_extracted"}
        )
        second = fgm.remember({"content": "logs are kept for 30 days", "source": "auto_extracted"})
        before = graph_snapshot()
        faulty.sabotage["remember_many"] = _spoil_last_merge
        batch = [
            {"content": "a brand new memory in the failing batch"},
            {"content": "The cache TTL is 300 seconds."},
            {"content": "logs are kept for 30 days"},
        ]
        with pytest.raises(REFUSED):
            fgm.remember_many(batch)
        assert graph_snapshot() == before
        assert fgm.get(first.id).occurrence_count == 1
        assert fgm.get(second.id).occurrence_count == 1


class TestMergeMemories:
    def _pair(self, gm: GraphMem) -> tuple[str, str]:
        into = gm.remember(
            {"content": "use feature flags for risky launches", "source": "auto_extracted"}
        )
        absorbed = gm.remember({"content": "risky launches go behind a flag", "source": "import"})
        gm.record_access(absorbed.id)
        gm.feedback(absorbed.id, 1)
        assert into.status is Status.CANDIDATE
        return into.id, absorbed.id

    def test_merge_rescore_and_activation_are_one_write(
        self, fgm: GraphMem, faulty: FaultyStore, clock: ManualClock
    ):
        into_id, absorbed_id = self._pair(fgm)
        before = fgm.get(into_id)
        clock.advance(60)
        faulty.writes.clear()
        merged = fgm.merge_memories(into_id, absorbed_id)
        assert faulty.writes == ["merge_memories"]
        assert merged.status is Status.ACTIVE  # occurrence_count 2 reaches recurrence
        assert merged.occurrence_count == 2 and merged.access_count == 1
        assert merged.importance != before.importance
        assert merged.importance == pytest.approx(fgm.importance_breakdown(merged).total)
        assert fgm.get(absorbed_id).tier is Tier.ARCHIVED
        kinds = [e.kind for e in fgm.staging_events(into_id)]
        assert sorted(kinds) == ["activated", "merged"]

    @pytest.mark.parametrize("spoiled", ["activation_id", "importance_fields"])
    def test_a_failure_at_a_late_step_leaves_both_memories_untouched(
        self,
        fgm: GraphMem,
        faulty: FaultyStore,
        graph_snapshot: Callable[[], Any],
        spoiled: str,
    ):
        into_id, absorbed_id = self._pair(fgm)
        before = graph_snapshot()

        def spoil(params: dict[str, Any]) -> None:
            if spoiled == "importance_fields":
                params[spoiled] = {**params[spoiled], "importance": NOT_A_PROPERTY}
            else:
                params[spoiled] = NOT_A_PROPERTY

        faulty.sabotage["merge_memories"] = spoil
        with pytest.raises(REFUSED):
            fgm.merge_memories(into_id, absorbed_id)
        assert graph_snapshot() == before


class TestRestore:
    def test_restore_and_rescore_are_one_write(
        self, fgm: GraphMem, faulty: FaultyStore, clock: ManualClock
    ):
        memory = fgm.remember({"content": "an old convention", "memory_type": "convention"})
        fgm.store.write(
            "archive_memories",
            {
                "project_id": "default",
                "items": [{"id": memory.id, "tier": "working", "score": 0.1, "reason": "stale"}],
                "now": clock.now(),
            },
        )
        clock.advance(30 * 86_400)
        faulty.writes.clear()
        restored = fgm.restore(memory.id)
        assert faulty.writes[0] == "restore_memory"
        assert set(faulty.writes[1:]) <= CASCADE
        assert restored.tier is Tier.WORKING
        assert restored.last_accessed_at == pytest.approx(clock.now())
        # Just used: the stored score is the one as of now.
        assert restored.importance == pytest.approx(fgm.importance_breakdown(restored).total)

    def test_a_failure_at_the_rescore_leaves_it_archived(
        self,
        fgm: GraphMem,
        faulty: FaultyStore,
        clock: ManualClock,
        graph_snapshot: Callable[[], Any],
    ):
        memory = fgm.remember({"content": "a rule nobody used", "memory_type": "rule"})
        fgm.store.write(
            "archive_memories",
            {
                "project_id": "default",
                "items": [{"id": memory.id, "tier": "working", "score": 0.1, "reason": "stale"}],
                "now": clock.now(),
            },
        )
        before = graph_snapshot()
        faulty.sabotage["restore_memory"] = lambda p: p.update(
            importance_fields={"importance": NOT_A_PROPERTY}
        )
        with pytest.raises(REFUSED):
            fgm.restore(memory.id)
        assert graph_snapshot() == before
        assert fgm.get(memory.id).tier is Tier.ARCHIVED


class TestSingleWriteOperations:
    """Operations that were already one statement: they stay so."""

    def test_relate_supersede_approve_reject_each_write_once(
        self, fgm: GraphMem, faulty: FaultyStore
    ):
        old, new, candidate, noise = (
            fgm.remember({"content": text, "source": "auto_extracted"})
            for text in (
                "deploys happen on Tuesdays",
                "deploys happen on any weekday",
                "the on-call rota changes on Mondays",
                "lunch is at noon",
            )
        )
        operations: list[tuple[str, Callable[[], Any]]] = [
            ("relate_enables", lambda: fgm.relate(old.id, candidate.id, "ENABLES")),
            ("relate_supersedes", lambda: fgm.supersede(old.id, new.id)),
            ("activate_candidates", lambda: fgm.approve(candidate.id)),
            ("reject_candidates", lambda: fgm.reject(noise.id, "not a memory")),
        ]
        for statement, operation in operations:
            faulty.writes.clear()
            operation()
            assert faulty.writes[0] == statement
            assert set(faulty.writes[1:]) <= CASCADE
        assert fgm.get(old.id).superseded_by == new.id
        assert fgm.get(candidate.id).status is Status.ACTIVE
        assert fgm.get(noise.id).tier is Tier.ARCHIVED

    def test_a_failed_supersede_leaves_no_edge_and_no_marker(
        self, fgm: GraphMem, faulty: FaultyStore, graph_snapshot: Callable[[], Any]
    ):
        old = fgm.remember({"content": "the API is versioned in the path"})
        new = fgm.remember({"content": "the API is versioned by a header"})
        before = graph_snapshot()
        faulty.sabotage["relate_supersedes"] = lambda p: p.update(rationale=NOT_A_PROPERTY)
        with pytest.raises(REFUSED):
            fgm.supersede(old.id, new.id)
        assert graph_snapshot() == before


def _spoil_run_record(params: dict[str, Any]) -> None:
    params["run"]["threshold"] = NOT_A_PROPERTY


class TestPromotionRun:
    def _session(self, fgm: GraphMem) -> None:
        fgm.open_session("s")
        for text in ("use uv for installs", "pin every dependency", "tests run on CI"):
            fgm.remember({"content": text, "memory_type": "decision", "session_id": "s"})

    def test_moves_events_and_the_run_record_are_one_write(
        self, fgm: GraphMem, faulty: FaultyStore, graph_snapshot: Callable[[], Any]
    ):
        self._session(fgm)
        before = graph_snapshot()
        faulty.sabotage["promote_memories"] = _spoil_run_record
        with pytest.raises(REFUSED):
            fgm.run_promotion("s")
        assert graph_snapshot() == before  # no move, no event, no run
        del faulty.sabotage["promote_memories"]
        run = fgm.run_promotion("s")
        assert run.promoted
        stats = fgm.promotion_stats("s")
        assert stats.runs == 1 and stats.last_promoted == len(run.promoted)

    def test_a_failure_after_the_moves_keeps_them_with_their_run(
        self, fgm: GraphMem, faulty: FaultyStore
    ):
        self._session(fgm)

        def fail(params: dict[str, Any]) -> None:
            raise redis.ConnectionError("lost the database after the moves")

        faulty.sabotage["finish_promotion_run"] = fail
        with pytest.raises(redis.ConnectionError):
            fgm.run_promotion("s")
        events = fgm.promotion_events(session_id="s", limit=50)
        stats = fgm.promotion_stats("s")
        assert events and stats.runs == 1 and stats.last_promoted == len(events)
        assert {e.run_id for e in events} == {stats.last_run_id}


def test_an_edit_and_its_new_vector_are_one_write(
    efgm: GraphMem, faulty: FaultyStore, graph_snapshot: Callable[[], Any]
):
    memory = efgm.remember({"content": "deploys happen on Tuesdays"})
    before = graph_snapshot()

    def spoil_vector(params: dict[str, Any]) -> None:
        params["embedding"] = NOT_A_PROPERTY

    faulty.sabotage["update_memory"] = spoil_vector
    with pytest.raises(REFUSED):
        efgm.update(memory.id, {"content": "deploys happen on Thursdays"})
    assert graph_snapshot() == before  # neither the new text nor a stale vector for it
    del faulty.sabotage["update_memory"]
    faulty.writes.clear()
    efgm.update(memory.id, {"content": "deploys happen on Thursdays"})
    assert faulty.writes == ["update_memory"]
