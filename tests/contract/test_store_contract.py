"""The store port's contract: what every backend must do the same way.

Each test runs on the embedded FalkorDB and on the test Neo4j.
"""

from __future__ import annotations

from array import array
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, GraphMemError
from graphmem.domain.kinds import Tier
from graphmem.server.scheduler import Scheduler
from graphmem.services.promotion import Trigger
from graphmem.store import Store

HOSTILE = [
    'quote " inside',
    "single ' quote and back\\slash \\",
    "`}) MATCH (n) DETACH DELETE n //",
    "new\nline\ttab",
    "unicode é 漢字 😀",
    "$rows",
]


class TestRows:
    def test_schema_setup_can_run_again(self, backend: str, store: Store, gm: GraphMem):
        store.setup_schema()
        store.setup_schema()
        assert gm.get(gm.remember({"content": "after the schema"}).id).content == "after the schema"

    def test_rows_are_plain_dicts_keyed_by_return_aliases(self, store: Store, gm: GraphMem):
        memory = gm.remember({"content": "plain", "tags": ["a", "b"], "session_id": "s-1"})
        (row,) = store.read("get_memories", {"ids": [memory.id], "project_id": "default"})
        assert set(row) == {"memory"}
        fields = row["memory"]
        assert isinstance(fields, dict)
        assert fields["id"] == memory.id
        assert type(fields["content"]) is str
        assert fields["tags"] == ["a", "b"] and type(fields["tags"]) is list
        assert type(fields["access_count"]) is int
        assert type(fields["created_at"]) is float
        assert type(fields["pinned"]) is bool
        assert fields["archived_at"] is None

    def test_no_match_is_an_empty_list(self, store: Store):
        assert store.read("get_memories", {"ids": ["missing"], "project_id": "default"}) == []

    def test_an_unknown_statement_is_an_error(self, store: Store):
        with pytest.raises(GraphMemError, match="no Cypher statement"):
            store.read("no_such_statement", {})

    @pytest.mark.parametrize("text", HOSTILE)
    def test_hostile_strings_are_data(self, backend: str, gm: GraphMem, text: str):
        bystander = gm.remember({"content": "bystander"})
        memory = gm.remember({"content": text, "rationale": text, "tags": [text]})
        stored = gm.get(memory.id)
        assert (stored.content, stored.rationale) == (text.strip(), text)
        assert stored.tags == [text.strip()]
        assert gm.get(bystander.id).content == "bystander"

    def test_numbers_keep_type_and_value(self, store: Store, gm: GraphMem):
        memory = gm.remember({"content": "numbers"})
        changes = {
            "confidence": 0.1,
            "last_accessed_at": 1_800_000_000.123,
            "access_count": 2**53,
            "pinned": False,
            "evidence": [],
        }
        store.write(
            "update_memory",
            {
                "id": memory.id,
                "project_id": "default",
                "changes": changes,
                "reembed": False,
                "embedding": None,
            },
        )
        (row,) = store.read("get_memories", {"ids": [memory.id], "project_id": "default"})
        got = {key: row["memory"][key] for key in changes}
        assert got == changes
        assert [type(value) for value in got.values()] == [float, float, int, bool, list]

    def test_embeddings_are_accepted_as_float32_arrays(
        self, backend: str, store: Store, gm: GraphMem
    ):
        memory = gm.remember({"content": "vector"})
        vector = array("f", [0.5, -0.25] + [0.0] * 382)
        rows = store.write(
            "set_embeddings",
            {"rows": [{"id": memory.id, "project_id": "default", "embedding": vector}]},
        )
        assert rows == [{"written": 1}]


class TestMemories:
    def test_every_field_round_trips(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(
            {
                "content": "Use Postgres for the ledger",
                "memory_type": "architectural_decision",
                "confidence": 0.9,
                "source": "manual",
                "tags": ["db", "ledger"],
                "rationale": "serialisable transactions",
                "evidence": ["ADR-12"],
                "session_id": "thread-1",
                "agent_id": "coder",
            }
        )
        stored = gm.get(memory.id)
        assert stored == memory
        assert stored.created_at == clock.now()

    def test_pages_follow_cursors_without_gaps(self, gm: GraphMem, clock: ManualClock):
        ids = []
        for index in range(5):
            ids.append(gm.remember({"content": f"memory {index}"}).id)
            clock.advance(0.001)
        seen, after = [], None
        while True:
            page = gm.list(first=2, after=after)
            seen += [m.id for m in page.items]
            if not page.has_next:
                break
            after = page.end_cursor
        assert seen == ids[::-1]

    def test_supersede_chains_refuse_cycles_and_forget_heals(self, gm: GraphMem):
        old = gm.remember({"content": "old rule"})
        new = gm.remember({"content": "new rule"})
        gm.supersede(old.id, new.id, rationale="replaced")
        assert gm.get(old.id).superseded_by == new.id
        with pytest.raises(ConflictError):
            gm.supersede(new.id, old.id)
        gm.forget(new.id)
        assert gm.get(old.id).superseded_by is None

    def test_relations_come_back_typed_and_directed(self, gm: GraphMem):
        rule = gm.remember({"content": "no network in tests"})
        task = gm.remember({"content": "add retries"})
        gm.relate(rule.id, task.id, "CONSTRAINS", rationale="CI", weight=0.5)
        ((relation,),) = gm.relations([task.id])
        assert (relation.type.value, relation.from_id, relation.to_id) == (
            "CONSTRAINS",
            rule.id,
            task.id,
        )
        assert (relation.rationale, relation.weight) == ("CI", 0.5)

    def test_archive_and_restore_return_to_the_tier(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember({"content": "stale", "confidence": 0.1})
        clock.advance(400 * 86_400)
        archived = gm.archive_stale()
        assert memory.id in archived.archived
        assert gm.get(memory.id).tier is Tier.ARCHIVED
        assert gm.restore(memory.id).tier is Tier.WORKING


class TestConcurrency:
    """Two writers at once: what FalkorDB gets from running writes one at a
    time, the Neo4j statements get from taking locks before re-checking."""

    def test_no_access_is_lost(self, gm: GraphMem):
        memory = gm.remember({"content": "popular"})
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda _: gm.record_access(memory.id), range(24)))
        assert gm.get(memory.id).access_count == 24

    def test_each_due_session_is_claimed_once(self, gm: GraphMem, store: Store):
        sessions = [f"s-{index}" for index in range(12)]
        for session in sessions:
            gm.open_session(session)
            gm.enable_promotion(session, interval_seconds=30)
        gm.clock.advance(60)  # type: ignore[attr-defined]

        def claim(owner: str) -> list[str]:
            rows = store.write(
                "claim_due_sessions",
                {"now": gm.clock.now(), "limit": 100, "owner": owner, "default_interval": 30},
            )
            return [row["session_id"] for row in rows]

        with ThreadPoolExecutor(max_workers=4) as pool:
            claims = list(pool.map(claim, ["a", "b", "c", "d"]))
        claimed = [session for owner in claims for session in owner]
        assert sorted(claimed) == sorted(sessions)

    def test_each_memory_is_promoted_once(self, gm: GraphMem):
        gm.open_session("s")
        # Few enough for FalkorDB's Bolt listener, which crashes on long query texts
        # (each move carries the reason it is made).
        for index in range(3):
            gm.remember(
                {"content": f"decision {index}", "memory_type": "decision", "session_id": "s"}
            )
        candidates = gm.promotion.evaluate("s", project_id="default", threshold=0.0)
        assert len(candidates) == 3

        def promote(_: int) -> list[str]:
            return gm.promotion.promote(
                candidates, project_id="default", trigger=Trigger.MANUAL
            ).promoted

        with ThreadPoolExecutor(max_workers=3) as pool:
            promoted = [m for run in pool.map(promote, range(3)) for m in run]
        assert sorted(promoted) == sorted(c.memory.id for c in candidates)
        events = gm.promotion_events(session_id="s", limit=50)
        assert len(events) == 3


class TestLifecycle:
    def test_review_approves_rejects_and_merges(self, gm: GraphMem):
        kept, dropped, twin = (
            gm.remember({"content": text, "source": "auto_extracted"})
            for text in ("kept", "dropped", "twin of kept")
        )
        assert gm.approve(kept.id).status.value == "active"
        assert gm.approve(kept.id).status.value == "active"  # a repeat logs nothing
        assert [e.kind for e in gm.staging_events(kept.id)] == ["activated"]
        rejected = gm.reject(dropped.id, "wrong")
        assert (rejected.tier, rejected.archived_from) == (Tier.ARCHIVED, Tier.WORKING)
        merged = gm.merge_memories(kept.id, twin.id)
        assert merged.occurrence_count == 2
        assert gm.get(twin.id).merged_into == kept.id

    def test_rotation_archives_the_oldest_working_memories(
        self, backend: str, gm: GraphMem, clock: ManualClock
    ):
        ids = []
        for index in range(6):
            ids.append(gm.remember({"content": f"note {index}", "session_id": "full"}).id)
            clock.advance(1)
        rotated = gm.promotion.rotate("full", project_id="default", limit=4)
        assert rotated >= 2
        archived = [m for m in gm.get_many(ids) if m is not None and m.tier is Tier.ARCHIVED]
        assert {m.id for m in archived} == set(ids[:rotated])
        assert {m.archived_from for m in archived} == {Tier.WORKING}

    def test_a_due_project_is_archived_once_per_interval(self, gm: GraphMem):
        gm.remember({"content": "anything"})
        first = Scheduler(gm, owner="a", busy_fraction=1.0)
        second = Scheduler(gm, owner="b", busy_fraction=1.0)
        assert first.tick() >= 1  # the project's archival and its session's promotion
        assert second.tick() == 0
