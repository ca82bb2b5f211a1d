"""The Python API against a real embedded FalkorDB graph."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import MemoryType, RelationType, SessionState, Status, Tier
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher


def count_memories(store: FalkorStore) -> int:
    return cypher(store, "MATCH (m:Memory) RETURN count(m)")[0][0]


class TestRemember:
    def test_round_trip_keeps_every_field(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(
            {
                "content": "Use Postgres for the ledger service",
                "memory_type": "architectural_decision",
                "confidence": 0.9,
                "source": "manual",
                "tags": ["db", "ledger"],
                "rationale": "needs serialisable transactions",
                "evidence": ["ADR-12"],
                "session_id": "thread-1",
                "agent_id": "coder",
            }
        )
        stored = gm.get(memory.id)
        assert stored == memory
        assert stored.memory_type is MemoryType.ARCHITECTURAL_DECISION
        assert stored.tier is Tier.WORKING
        assert stored.status is Status.ACTIVE
        assert stored.tags == ["db", "ledger"]
        assert stored.evidence == ["ADR-12"]
        assert stored.session_id == "thread-1"
        assert stored.created_at == clock.now()
        assert stored.importance == pytest.approx(0.2 * 1 + 0.3 * 0 + 0.25 * 0.9 + 0.25 * 1.0)

    @pytest.mark.parametrize(
        ("writes", "expected"),
        [
            ([{"content": "deploys go out on Tuesdays"}], (True, Status.ACTIVE, Tier.WORKING)),
            (
                [{"content": "deploys go out on Tuesdays", "tags": ["ops"]}] * 2,
                (False, Status.ACTIVE, Tier.WORKING),
            ),
            (  # the second write recurs: the candidate is activated after the write
                [{"content": "deploys go out on Tuesdays", "source": "auto_extracted"}] * 2,
                (False, Status.ACTIVE, Tier.WORKING),
            ),
            (  # an agent's "remember this" is promoted after the write
                [{"content": "deploys go out on Tuesdays", "suggested_by": "agent"}],
                (True, Status.ACTIVE, Tier.SEMANTIC),
            ),
        ],
    )
    def test_returns_the_memory_as_stored_after_every_step(
        self, gm: GraphMem, writes: list[dict], expected: tuple[bool, Status, Tier]
    ):
        for item in writes:
            memory, outcome = gm.remember_detailed(item)
        assert (outcome.created, memory.status, memory.tier) == expected
        assert memory == gm.get(memory.id)

    def test_auto_extracted_starts_as_candidate(self, gm: GraphMem):
        assert gm.remember({"content": "x", "source": "auto_extracted"}).status is Status.CANDIDATE
        assert gm.remember({"content": "y", "source": "manual"}).status is Status.ACTIVE

    def test_memory_links_to_its_session_and_project(self, gm: GraphMem, store: FalkorStore):
        memory = gm.remember({"content": "x", "session_id": "s-1"}, project_id="acme")
        rows = cypher(
            store,
            "MATCH (m:Memory {id: $id})-[:IN_SESSION]->(s:Session)-[:IN_PROJECT]->(p:Project) "
            "RETURN s.id, p.id",
            {"id": memory.id},
        )
        assert rows == [["s-1", "acme"]]

    def test_batch_returns_ids_in_order(self, gm: GraphMem):
        ids = gm.remember_many(
            [{"content": f"memory {i}", "session_id": f"s{i % 3}"} for i in range(50)]
        )
        assert len(set(ids)) == 50
        assert [m.content for m in gm.get_many(ids)] == [f"memory {i}" for i in range(50)]

    def test_one_bad_item_rejects_the_whole_batch(self, gm: GraphMem, store: FalkorStore):
        with pytest.raises(InvalidInputError) as error:
            gm.remember_many([{"content": "fine"}, {"content": "bad", "confidence": 7}])
        assert error.value.field == "items[1].confidence"
        assert count_memories(store) == 0

    @pytest.mark.parametrize(
        ("data", "field"),
        [
            ({"content": ""}, "content"),
            ({"content": "x" * 10_001}, "content"),
            ({"content": "x", "confidence": 1.01}, "confidence"),
            ({"content": "x", "memory_type": "nonsense"}, "memory_type"),
            ({"content": "x", "tier": "archived"}, "tier"),
        ],
    )
    def test_bad_input_writes_nothing(self, gm: GraphMem, store: FalkorStore, data, field):
        with pytest.raises(InvalidInputError) as error:
            gm.remember(data)
        assert error.value.field == field
        assert count_memories(store) == 0

    def test_bad_project_id(self, gm: GraphMem):
        with pytest.raises(InvalidInputError) as error:
            gm.remember({"content": "x"}, project_id="no spaces allowed")
        assert error.value.field == "project_id"


class TestProjects:
    def test_ids_from_another_project_do_not_exist(self, gm: GraphMem):
        theirs = gm.remember({"content": "secret"}, project_id="other")
        mine = gm.remember({"content": "mine"})
        with pytest.raises(NotFoundError):
            gm.get(theirs.id)
        with pytest.raises(NotFoundError):
            gm.record_access(theirs.id)
        with pytest.raises(NotFoundError):
            gm.forget(theirs.id)
        assert [m.id for m in gm.list().items] == [mine.id]
        assert gm.get(theirs.id, project_id="other").content == "secret"

    def test_relation_across_projects_is_refused(self, gm: GraphMem, store: FalkorStore):
        theirs = gm.remember({"content": "a"}, project_id="other")
        mine = gm.remember({"content": "b"})
        with pytest.raises(NotFoundError) as error:
            gm.relate(mine.id, theirs.id, "RELATED_TO")
        assert error.value.field == "to_id"
        edges = cypher(store, "MATCH (:Memory)-[r:RELATED_TO]->(:Memory) RETURN count(r)")
        assert edges[0][0] == 0


class TestListing:
    def test_cursor_pagination_visits_every_memory_once(self, gm: GraphMem, clock: ManualClock):
        ids = []
        for i in range(7):
            ids += gm.remember_many([{"content": f"m{i}-{j}"} for j in range(3)])
            clock.advance(1)
        seen, after = [], None
        while True:
            page = gm.list(first=4, after=after)
            seen += [m.id for m in page.items]
            if not page.has_next:
                break
            after = page.end_cursor
        assert sorted(seen) == sorted(ids)
        assert len(seen) == len(ids)
        created = [gm.get(i).created_at for i in seen]
        assert created == sorted(created, reverse=True)

    def test_filters(self, gm: GraphMem):
        a = gm.remember(
            {"content": "a", "memory_type": "risk", "tags": ["x", "y"], "session_id": "s1"}
        )
        b = gm.remember(
            {"content": "b", "memory_type": "fact", "tags": ["x"], "source": "auto_extracted"}
        )
        c = gm.remember({"content": "c", "tier": "semantic", "session_id": "s1"})
        gm.pin(c.id)

        def ids(**flt):
            return {m.id for m in gm.list(flt).items}

        assert ids(memory_type="risk") == {a.id}
        assert ids(tags=["x"]) == {a.id, b.id}
        assert ids(tags=["x", "y"]) == {a.id}
        assert ids(status="candidate") == {b.id}
        assert ids(tier="semantic") == {c.id}
        assert ids(session_id="s1") == {a.id, c.id}
        assert ids(pinned=True) == {c.id}

    def test_bad_cursor_and_page_size(self, gm: GraphMem):
        with pytest.raises(InvalidInputError) as error:
            gm.list(after="not-a-cursor")
        assert error.value.field == "after"
        with pytest.raises(InvalidInputError) as error:
            gm.list(first=0)
        assert error.value.field == "first"

    def test_memory_without_status_counts_as_active(self, gm: GraphMem, store: FalkorStore):
        memory = gm.remember({"content": "old"})
        cypher(store, "MATCH (m:Memory {id: $id}) REMOVE m.status", {"id": memory.id})
        assert gm.get(memory.id).status is Status.ACTIVE
        assert [m.id for m in gm.list({"status": "active"}).items] == [memory.id]


class TestUsage:
    def test_record_access_counts_and_rescores(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember({"content": "x", "memory_type": "fact"})
        clock.advance(3600)
        accessed = gm.record_access(memory.id)
        assert accessed.access_count == 1
        assert accessed.last_accessed_at == clock.now()
        stored = gm.get(memory.id)
        # recency back to 1, frequency 0.1: strictly above the original score
        assert stored.importance == pytest.approx(0.2 + 0.3 * 0.1 + 0.25 * 0.7 + 0.25 * 0.7)
        assert stored.importance > memory.importance

    def test_feedback_accumulates(self, gm: GraphMem):
        memory = gm.remember({"content": "x"})
        gm.feedback(memory.id, 1)
        gm.feedback(memory.id, 1)
        after = gm.feedback(memory.id, -1)
        assert (after.feedback, after.feedback_count) == (1, 3)
        with pytest.raises(InvalidInputError) as error:
            gm.feedback(memory.id, 2)
        assert error.value.field == "value"

    def test_pin_confirms_a_candidate(self, gm: GraphMem):
        memory = gm.remember({"content": "x", "source": "auto_extracted"})
        pinned = gm.pin(memory.id)
        assert pinned.pinned and pinned.status is Status.ACTIVE
        assert gm.unpin(memory.id).pinned is False

    def test_update_rescores_and_validates(self, gm: GraphMem, store: FalkorStore):
        memory = gm.remember({"content": "x", "memory_type": "assumption", "confidence": 0.5})
        updated = gm.update(memory.id, {"memory_type": "risk", "content": "y", "confidence": 0.9})
        assert (updated.content, updated.memory_type) == ("y", MemoryType.RISK)
        assert updated.importance > memory.importance
        with pytest.raises(InvalidInputError):
            gm.update(memory.id, {"confidence": 3})
        with pytest.raises(InvalidInputError):
            gm.update(memory.id, {})
        assert gm.get(memory.id) == updated

    def test_importance_breakdown_sums_to_total(self, gm: GraphMem):
        memory = gm.remember({"content": "x", "memory_type": "discovery"})
        breakdown = gm.importance_breakdown(memory)
        assert sum(c.contribution for c in breakdown.components) == pytest.approx(breakdown.total)
        assert breakdown.total == pytest.approx(memory.importance)


class TestRelations:
    def test_relate_is_typed_and_idempotent(self, gm: GraphMem):
        rule = gm.remember({"content": "No network calls in tests", "memory_type": "rule"})
        task = gm.remember({"content": "Add HTTP retries"})
        first = gm.relate(rule.id, task.id, "CONSTRAINS", rationale="tests run offline")
        again = gm.relate(
            rule.id, task.id, RelationType.CONSTRAINS, rationale="updated", weight=0.5
        )
        assert first.type is RelationType.CONSTRAINS
        (relations,) = gm.relations([task.id])
        assert len(relations) == 1
        assert relations[0].rationale == "updated" and relations[0].weight == 0.5
        assert relations[0].created_at == first.created_at == again.created_at

    @pytest.mark.parametrize(
        ("call", "error", "field"),
        [
            (lambda gm, a, b: gm.relate(a, a, "ENABLES"), InvalidInputError, "to_id"),
            (lambda gm, a, b: gm.relate(a, "missing", "ENABLES"), NotFoundError, "to_id"),
            (lambda gm, a, b: gm.relate("missing", b, "ENABLES"), NotFoundError, "from_id"),
            (lambda gm, a, b: gm.relate(a, b, "LIKES"), InvalidInputError, "type"),
            (lambda gm, a, b: gm.relate(a, b, "ENABLES", weight=2), InvalidInputError, "weight"),
        ],
    )
    def test_bad_relations(self, gm: GraphMem, store: FalkorStore, call, error, field):
        a = gm.remember({"content": "a"}).id
        b = gm.remember({"content": "b"}).id
        with pytest.raises(error) as raised:
            call(gm, a, b)
        assert raised.value.field == field
        assert (
            cypher(
                store,
                "MATCH ()-[r]->() WHERE NOT type(r) IN ['IN_SESSION', 'IN_PROJECT'] "
                "RETURN count(r)",
            )[0][0]
            == 0
        )

    def test_supersede_marks_the_old_memory_and_refuses_cycles(self, gm: GraphMem):
        old = gm.remember({"content": "Deploy on Fridays"})
        new = gm.remember({"content": "Never deploy on Fridays"})
        relation = gm.supersede(old.id, new.id, rationale="incident 42")
        assert (relation.from_id, relation.to_id) == (new.id, old.id)
        assert gm.get(old.id).superseded_by == new.id
        with pytest.raises(ConflictError) as error:
            gm.supersede(new.id, old.id)
        assert error.value.field == "old_id"
        with pytest.raises(NotFoundError) as error:
            gm.supersede(old.id, "missing")
        assert error.value.field == "new_id"

    def test_forget_deletes_and_reinstates_what_it_superseded(self, gm: GraphMem):
        old = gm.remember({"content": "old"})
        new = gm.remember({"content": "new"})
        gm.supersede(old.id, new.id)
        gm.forget(new.id)
        with pytest.raises(NotFoundError):
            gm.get(new.id)
        assert gm.get(old.id).superseded_by is None
        assert gm.relations([old.id]) == [[]]
        with pytest.raises(NotFoundError):
            gm.forget(new.id)


class TestSessions:
    def test_lifecycle(self, gm: GraphMem, clock: ManualClock):
        opened = gm.open_session("thread-9", name="refactor")
        assert opened.state is SessionState.ACTIVE
        clock.advance(10)
        assert gm.pause_session("thread-9").state is SessionState.PAUSED
        closed = gm.close_session("thread-9")
        assert closed.state is SessionState.CLOSED
        assert closed.updated_at == clock.now()
        reopened = gm.open_session("thread-9")
        assert reopened.state is SessionState.ACTIVE and reopened.name == "refactor"
        assert reopened.created_at == opened.created_at

    def test_generated_ids_and_missing_sessions(self, gm: GraphMem):
        assert gm.open_session().id != gm.open_session().id
        with pytest.raises(NotFoundError) as error:
            gm.pause_session("nope")
        assert error.value.field == "session_id"
        with pytest.raises(InvalidInputError):
            gm.open_session("bad id")

    def test_sessions_are_per_project(self, gm: GraphMem):
        gm.open_session("shared-name", project_id="a")
        with pytest.raises(NotFoundError):
            gm.get_session("shared-name", project_id="b")
