"""The promotion engine, its triggers and the scheduler, on a real graph."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import NotFoundError
from graphmem.domain.kinds import MemoryType, SessionState, Tier
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import Factor, ImportanceScorer, ScoringPreset
from graphmem.server.scheduler import Scheduler
from graphmem.services.promotion import Trigger, threshold_for
from graphmem.services.telemetry import Event
from graphmem.store import Store
from tests.conftest import cypher

S = "thread-1"


def strong(content: str = "token expiry breaks the nightly job", **extra) -> dict:
    """Scores 0.2 + 0.25*0.9 + 0.25*1.0 = 0.675 when fresh: above 0.6."""
    return {"content": content, "memory_type": "risk", "confidence": 0.9, "session_id": S, **extra}


def weak(content: str = "maybe the cache is cold", **extra) -> dict:
    """Scores 0.2 + 0.25*0.2 + 0.25*0.4 = 0.35 when fresh: below 0.6."""
    return {
        "content": content,
        "memory_type": "assumption",
        "confidence": 0.2,
        "session_id": S,
        **extra,
    }


def tier_of(gm: GraphMem, memory_id: str) -> Tier:
    return gm.get(memory_id).tier


def count(store: Store, query: str, **params) -> int:
    return cypher(store, query, params)[0][0]


class TestEvaluate:
    def test_empty_session_promotes_nothing(self, gm: GraphMem):
        gm.open_session(S)
        result = gm.run_promotion(S)
        assert (result.count, result.candidates, result.remaining) == (0, [], 0)

    def test_threshold_splits_items(self, gm: GraphMem):
        above = gm.remember(strong())
        below = gm.remember(weak())
        result = gm.run_promotion(S)
        assert result.promoted == [above.id]
        assert tier_of(gm, above.id) is Tier.EPISODIC
        assert tier_of(gm, below.id) is Tier.WORKING
        assert result.threshold == 0.6

    def test_untyped_items_are_not_promotable(self, gm: GraphMem):
        untyped = gm.remember({"content": "x", "confidence": 1.0, "session_id": S})
        for _ in range(10):
            gm.record_access(untyped.id)
        assert gm.get(untyped.id).importance >= 0.6
        assert gm.run_promotion(S).promoted == []

    def test_sorted_by_importance_and_capped(self, gm: GraphMem, clock: ManualClock):
        gm.rules = gm.promotion.rules = RetentionRules(max_promotions_per_run=3)
        ids = [gm.remember(strong(f"risk {i}", confidence=0.5 + i * 0.05)).id for i in range(6)]
        candidates = gm.promotion.evaluate(S, project_id="default")
        assert [c.memory.id for c in candidates] == ids[::-1][:3]
        scores = [c.score for c in candidates]
        assert scores == sorted(scores, reverse=True)
        assert gm.run_promotion(S).promoted == ids[::-1][:3]

    def test_frequently_accessed_and_salient_rank_first(self, gm: GraphMem):
        plain = gm.remember(strong("a fact", memory_type="fact", confidence=0.9))
        salient = gm.remember(strong("a risk", confidence=0.9))
        used = gm.remember(strong("a used fact", memory_type="fact", confidence=0.9))
        for _ in range(8):
            gm.record_access(used.id)
        order = [c.memory.id for c in gm.promotion.evaluate(S, project_id="default", threshold=0)]
        assert order == [used.id, salient.id, plain.id]

    def test_recency_decay_changes_the_order_over_time(self, gm: GraphMem, clock: ManualClock):
        old_but_used = gm.remember(strong("old", memory_type="fact", confidence=0.8))
        for _ in range(3):
            gm.record_access(old_but_used.id)
        clock.advance(6 * 3600)
        fresh = gm.remember(strong("fresh", memory_type="fact", confidence=0.8))

        def order() -> list[str]:
            return [
                c.memory.id for c in gm.promotion.evaluate(S, project_id="default", threshold=0)
            ]

        # fresh: 0.2 + 0.375 = 0.575; old: 0.2/13 + 0.09 + 0.375 = 0.48
        assert order() == [fresh.id, old_but_used.id]
        gm.record_access(old_but_used.id)
        assert order() == [old_but_used.id, fresh.id]

    def test_dry_run_reports_breakdowns_and_writes_nothing(self, gm: GraphMem, store: Store):
        memory = gm.remember(strong())
        result = gm.run_promotion(S, dry_run=True)
        (candidate,) = result.candidates
        assert candidate.memory.id == memory.id and candidate.to_tier is Tier.EPISODIC
        assert sum(c.contribution for c in candidate.breakdown.components) == pytest.approx(
            candidate.score
        )
        assert result.promoted == []
        assert tier_of(gm, memory.id) is Tier.WORKING
        assert (
            count(store, "MATCH (n) WHERE n:PromotionEvent OR n:PromotionRun RETURN count(n)") == 0
        )
        assert gm.promotion_stats(S).runs == 0


class TestTiers:
    def test_working_then_episodic_then_semantic(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        gm.run_promotion(S)
        assert tier_of(gm, memory.id) is Tier.EPISODIC
        clock.advance(60)
        gm.feedback(memory.id, 1)
        gm.run_promotion(S)
        assert tier_of(gm, memory.id) is Tier.SEMANTIC
        gm.run_promotion(S)
        assert tier_of(gm, memory.id) is Tier.SEMANTIC
        events = gm.promotion_events(memory_id=memory.id)
        assert [(e.from_tier, e.to_tier) for e in events] == [
            (Tier.EPISODIC, Tier.SEMANTIC),
            (Tier.WORKING, Tier.EPISODIC),
        ]

    @pytest.mark.parametrize("kind", ["rule", "convention", "coding_standard"])
    def test_rules_and_conventions_go_to_procedural(self, gm: GraphMem, kind):
        memory = gm.remember(strong(memory_type=kind))
        gm.run_promotion(S)
        assert tier_of(gm, memory.id) is Tier.PROCEDURAL

    def test_pinned_and_constraining_memories_go_to_procedural(self, gm: GraphMem):
        pinned = gm.remember(strong("pinned"))
        gm.pin(pinned.id)
        constraint = gm.remember(strong("no network in tests"))
        target = gm.remember(weak("add retries"))
        gm.relate(constraint.id, target.id, "CONSTRAINS")
        gm.run_promotion(S)
        assert tier_of(gm, pinned.id) is Tier.PROCEDURAL
        assert tier_of(gm, constraint.id) is Tier.PROCEDURAL

    def test_each_move_is_logged_with_its_breakdown(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        result = gm.run_promotion(S)
        (event,) = gm.promotion_events(session_id=S)
        assert event.memory_id == memory.id and event.run_id == result.run_id
        assert event.trigger == "manual" and event.at == clock.now()
        assert sum(event.component_contributions) == pytest.approx(event.score)
        assert gm.get(memory.id).promoted_at == clock.now()

    def test_agent_decisions_score_one_and_are_promoted_at_once(self, gm: GraphMem):
        events: list[Event] = []
        gm.telemetry.subscribe(events.append)
        decision = gm.remember(weak("remember: deploys need a change ticket", suggested_by="agent"))
        stored = gm.get(decision.id)
        assert stored.importance == 1.0
        assert stored.tier is Tier.SEMANTIC
        (event,) = gm.promotion_events(memory_id=decision.id)
        assert event.trigger == "agent_decision"
        assert {"promotion.triggered", "promotion.completed"} <= {e.name for e in events}
        rule = gm.remember(weak("always squash", memory_type="rule", suggested_by="agent"))
        assert tier_of(gm, rule.id) is Tier.PROCEDURAL


class TestPromote:
    def test_counts_successes_and_reports_partial_failure(self, gm: GraphMem):
        ids = [gm.remember(strong(f"risk {i}")).id for i in range(3)]
        candidates = gm.promotion.evaluate(S, project_id="default")
        gm.forget(ids[1])
        result = gm.promotion.promote(candidates, project_id="default")
        assert sorted(result.promoted) == sorted([ids[0], ids[2]])
        assert [f.memory_id for f in result.failures] == [ids[1]]
        assert "no longer in tier working" in result.failures[0].reason

    def test_run_clears_promoted_items_from_the_pending_set(self, gm: GraphMem):
        promoted = gm.remember(strong())
        pending = gm.remember(weak())
        gm.run_promotion(S)
        working = {m.id for m in gm.list({"session_id": S, "tier": "working"}).items}
        assert working == {pending.id}
        assert promoted.id not in working

    def test_promotion_is_idempotent(self, gm: GraphMem, store: Store):
        memory = gm.remember(strong())
        candidates = gm.promotion.evaluate(S, project_id="default")
        first = gm.promotion.promote(candidates, project_id="default")
        again = gm.promotion.promote(candidates, project_id="default")
        assert first.promoted == [memory.id] and again.promoted == []
        assert count(store, "MATCH (e:PromotionEvent) RETURN count(e)") == 1

    def test_two_concurrent_runners_never_promote_twice(
        self, gm: GraphMem, store: Store, connect_again: Callable[[], Store], clock
    ):
        gm.rules = gm.promotion.rules = RetentionRules(max_promotions_per_run=500)
        ids = gm.remember_many([strong(f"risk {i}") for i in range(300)])
        runners = [GraphMem(connect_again(), clock=clock) for _ in range(2)]
        for runner in runners:
            runner.rules = runner.promotion.rules = gm.rules
        results = []
        barrier = threading.Barrier(2)

        def run(runner: GraphMem) -> None:
            barrier.wait()
            results.append(runner.run_promotion(S))

        threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in runners]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads), "a runner did not finish in 60 s"
        promoted = results[0].promoted + results[1].promoted
        assert sorted(promoted) == sorted(ids), "every item promoted exactly once"
        assert count(store, "MATCH (e:PromotionEvent) RETURN count(e)") == 300
        assert count(store, "MATCH (m:Memory {tier: 'episodic'}) RETURN count(m)") == 300


class TestStatsAndTriggers:
    def test_stats_accumulate_and_timestamps_move(self, gm: GraphMem, clock: ManualClock):
        gm.remember(strong("one"))
        first = gm.run_promotion(S)
        stats = gm.promotion_stats(S)
        assert (stats.runs, stats.total_promoted, stats.last_promoted) == (1, 1, 1)
        assert stats.last_run_at == clock.now() and stats.last_run_id == first.run_id
        clock.advance(60)
        gm.remember_many([strong("two"), strong("three"), weak()])
        gm.run_promotion(S)
        stats = gm.promotion_stats(S)
        # "one" stays episodic: nothing but its score speaks for it yet.
        assert (stats.runs, stats.total_promoted, stats.last_promoted) == (2, 3, 2)
        assert stats.last_remaining == 1 and stats.last_threshold == 0.6
        assert stats.last_run_at == clock.now()

    def test_sessions_have_independent_stats(self, gm: GraphMem):
        gm.remember(strong("a1", session_id="a"))
        gm.remember(strong("b1", session_id="b"))
        gm.remember(strong("b2", session_id="b"))
        gm.run_promotion("b")
        assert gm.promotion_stats("a").runs == 0
        assert gm.promotion_stats("b").total_promoted == 2

    def test_pause_runs_promotion_before_the_pause_completes(self, gm: GraphMem):
        events: list[Event] = []
        gm.telemetry.subscribe(events.append)
        memory = gm.remember(strong())
        session = gm.pause_session(S)
        assert session.state is SessionState.PAUSED
        assert tier_of(gm, memory.id) is Tier.EPISODIC
        triggered = [e for e in events if e.name == "promotion.triggered"]
        assert triggered[-1].fields == {
            "trigger": "pause",
            "session_id": S,
            "project_id": "default",
            "dry_run": False,
        }
        completed = [e for e in events if e.name == "promotion.completed"][-1]
        assert completed.fields["promoted"] == 1 and completed.fields["duration_ms"] >= 0

    def test_close_gives_every_pending_item_its_chance(self, gm: GraphMem):
        gm.rules = gm.promotion.rules = RetentionRules(max_promotions_per_run=5)
        ids = gm.remember_many([strong(f"risk {i}") for i in range(12)])
        gm.close_session(S)
        assert {tier_of(gm, i) for i in ids} == {Tier.EPISODIC}
        assert gm.get_session(S).state is SessionState.CLOSED

    def test_memory_limit_promotes_then_rotates(self, gm: GraphMem, clock: ManualClock):
        gm.open_session(S, max_items=10)
        weak_ids = []
        for i in range(9):
            weak_ids.append(gm.remember(weak(f"note {i}")).id)
            clock.advance(1)
        events: list[Event] = []
        gm.telemetry.subscribe(events.append)
        hot = gm.remember(strong())
        assert tier_of(gm, hot.id) is Tier.EPISODIC
        # 9 weak items remain, under the limit of 10: no rotation needed yet
        assert gm.promotion_stats(S).last_trigger == "memory_limit"
        gm.remember(weak("note 9"))
        stats = gm.promotion_stats(S)
        assert stats.last_rotated == 1 and stats.last_remaining == 9
        assert tier_of(gm, weak_ids[0]) is Tier.ARCHIVED, "the oldest is archived"
        archived = gm.get(weak_ids[0])
        assert archived.archived_at == clock.now()
        assert "memory_limit" in [
            e.fields["trigger"] for e in events if e.name == "promotion.triggered"
        ]

    def test_missing_session(self, gm: GraphMem):
        with pytest.raises(NotFoundError):
            gm.run_promotion("nope")
        with pytest.raises(NotFoundError):
            gm.promotion_stats("nope")


class TestScheduler:
    def test_schedules_reschedules_stops_and_restarts(self, gm: GraphMem, clock: ManualClock):
        gm.open_session(S)
        scheduler = Scheduler(gm, busy_fraction=1.0)
        assert scheduler.tick() >= 1, "a new session is due at once"
        assert gm.promotion_stats(S).runs == 1
        clock.advance(10)
        scheduler.tick()
        assert gm.promotion_stats(S).runs == 1, "not due again before the interval"
        clock.advance(20)
        scheduler.tick()
        assert gm.promotion_stats(S).runs == 2
        gm.disable_promotion(S)
        clock.advance(300)
        scheduler.tick()
        assert gm.promotion_stats(S).runs == 2, "disabled sessions are skipped"
        stats = gm.enable_promotion(S, interval_seconds=5)
        assert stats.enabled and stats.next_run_at == clock.now() + 5
        scheduler.tick()
        assert gm.promotion_stats(S).runs == 2, "re-enabled: first run one interval later"
        clock.advance(5)
        scheduler.tick()
        stats = gm.promotion_stats(S)
        assert stats.runs == 3 and stats.last_trigger == "periodic"

    def test_paused_sessions_are_not_run(self, gm: GraphMem, clock: ManualClock):
        gm.open_session(S)
        gm.pause_session(S)
        runs = gm.promotion_stats(S).runs
        Scheduler(gm, busy_fraction=1.0).tick()
        assert gm.promotion_stats(S).runs == runs

    def test_two_schedulers_on_one_database_do_not_duplicate_runs(
        self, gm: GraphMem, store: Store, connect_again: Callable[[], Store], clock
    ):
        for i in range(40):
            gm.open_session(f"s{i}")
        # Unpaced (busy_fraction 1.0): the race is in the claim, and resting
        # three times each run's length would only stretch the test.
        schedulers = [
            Scheduler(GraphMem(connect_again(), clock=clock), owner=name, busy_fraction=1.0)
            for name in ("a", "b")
        ]
        barrier = threading.Barrier(2)

        def tick(scheduler: Scheduler) -> None:
            barrier.wait()
            scheduler.tick()

        threads = [threading.Thread(target=tick, args=(s,), daemon=True) for s in schedulers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads), "a scheduler did not finish in 60 s"
        runs = cypher(store, "MATCH (r:PromotionRun) RETURN r.session_id, count(r)")
        assert len(runs) == 40 and all(n == 1 for _, n in runs)

    def test_background_thread_starts_and_stops(self, gm: GraphMem):
        gm.open_session(S)
        scheduler = Scheduler(gm, tick_seconds=0.01)
        scheduler.start()
        try:
            for _ in range(500):
                if gm.promotion_stats(S).runs:
                    break
                threading.Event().wait(0.01)
        finally:
            scheduler.stop()
        assert gm.promotion_stats(S).runs >= 1


class TestArchival:
    def test_stale_low_importance_items_are_archived_with_a_reason(
        self, gm: GraphMem, clock: ManualClock
    ):
        stale = gm.remember(weak())
        kept = gm.remember(strong())
        pinned = gm.remember(weak("pinned note"))
        gm.pin(pinned.id)
        clock.advance(2 * 86_400)
        dry = gm.archive_stale(dry_run=True)
        assert [i.memory_id for i in dry.items] == [stale.id] and dry.archived == []
        assert tier_of(gm, stale.id) is Tier.WORKING
        result = gm.archive_stale()
        assert result.archived == [stale.id]
        archived = gm.get(stale.id)
        assert archived.tier is Tier.ARCHIVED and archived.archived_at == clock.now()
        assert tier_of(gm, kept.id) is Tier.WORKING and tier_of(gm, pinned.id) is Tier.WORKING

    def test_archived_items_are_hidden_unless_asked_for_and_restorable(
        self, gm: GraphMem, clock: ManualClock
    ):
        memory = gm.remember(weak(session_id="x"))
        gm.run_promotion("x")
        clock.advance(2 * 86_400)
        gm.archive_stale()
        assert gm.list().items == []
        assert [m.id for m in gm.list({"include_archived": True}).items] == [memory.id]
        restored = gm.restore(memory.id)
        assert restored.tier is Tier.WORKING
        assert (restored.archived_at, restored.archived_from, restored.archive_reason) == (
            None,
            None,
            None,
        )
        assert restored.last_accessed_at == clock.now()
        assert gm.archive_stale().archived == [], "a restored memory counts as just used"
        assert [f for f in gm.evaluate().findings if f.code == "IMPORTANCE_STALE"] == []
        assert [m.id for m in gm.list().items] == [memory.id]
        with pytest.raises(NotFoundError):
            gm.restore(memory.id)

    def test_restore_returns_to_the_previous_tier(self, gm: GraphMem, clock: ManualClock):
        gm.rules = gm.promotion.rules = gm.archiver.rules = RetentionRules(promote_threshold=0.3)
        memory = gm.remember(weak())
        gm.run_promotion(S)
        assert tier_of(gm, memory.id) is Tier.EPISODIC
        clock.advance(400 * 86_400)
        gm.archive_stale()
        assert tier_of(gm, memory.id) is Tier.ARCHIVED
        assert gm.restore(memory.id).tier is Tier.EPISODIC


def test_database_scoring_equals_the_python_scorer(store: Store, clock: ManualClock):
    """evaluate_session scores in Cypher; it must agree with graphmem.domain.scoring."""
    rng = random.Random(7)
    types = [t.value for t in MemoryType]
    for preset in ("default", "jarvis"):
        session = f"score-{preset}"
        scorer = ImportanceScorer(preset)
        gm = GraphMem(store, clock=clock, scorer=scorer)  # every service scores with it
        for i in range(40):
            memory = gm.remember(
                {
                    "content": f"{preset} item {i}",
                    "memory_type": rng.choice(types),
                    "confidence": round(rng.random(), 3),
                    "self_assessment": rng.choice(["low", "medium", "high"]),
                    "session_id": session,
                }
            )
            for _ in range(rng.randrange(0, 15)):
                gm.record_access(memory.id)
            for _ in range(rng.randrange(0, 3)):
                gm.feedback(memory.id, rng.choice([-1, 0, 1]))
            clock.advance(rng.randrange(0, 7200))
        candidates = gm.promotion.evaluate(session, project_id="default", threshold=0, limit=100)
        assert len(candidates) == 40
        for c in candidates:
            assert c.score == pytest.approx(scorer.score(c.memory, clock.now()), abs=1e-9)


def test_triggers_are_named(gm: GraphMem):
    assert {t.value for t in Trigger} == {
        "manual",
        "periodic",
        "pause",
        "close",
        "memory_limit",
        "agent_decision",
    }


class TestLongTermEvidence:
    """Episodic -> semantic needs evidence beyond one more run, and never two tiers at once."""

    def test_two_runs_seconds_apart_move_one_tier(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        gm.feedback(memory.id, 1)
        gm.run_promotion(S)
        clock.advance(5)
        assert gm.run_promotion(S).promoted == []
        assert tier_of(gm, memory.id) is Tier.EPISODIC
        clock.advance(gm.rules.promotion_interval_seconds)
        assert gm.run_promotion(S).promoted == [memory.id]
        assert tier_of(gm, memory.id) is Tier.SEMANTIC

    def test_a_high_score_alone_is_not_evidence(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        gm.run_promotion(S)
        for _ in range(3):
            clock.advance(gm.rules.promotion_interval_seconds + 1)
            gm.record_access(memory.id)
            assert gm.run_promotion(S).promoted == []
        assert tier_of(gm, memory.id) is Tier.EPISODIC

    def test_use_in_a_second_session_is_evidence(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        gm.run_promotion(S)
        clock.advance(60)
        assert (
            gm.promotion.record_session_use([memory.id], session_id=S, project_id="default") == []
        )
        assert gm.run_promotion(S).promoted == []
        noted = gm.promotion.record_session_use(
            [memory.id], session_id="thread-2", project_id="default"
        )
        assert noted == [memory.id]
        result = gm.run_promotion(S)
        assert result.promoted == [memory.id]
        assert "used in 2 sessions" in result.candidates[0].reason

    def test_recurrence_is_evidence(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(strong())
        gm.run_promotion(S)
        clock.advance(60)
        gm.remember(strong())  # the same text again: merged, occurrence 2
        assert gm.run_promotion(S).promoted == [memory.id]
        (event, _) = gm.promotion_events(memory_id=memory.id)
        assert "written 2 times" in event.reason

    def test_dwell_time_in_episodic_is_evidence(self, gm: GraphMem, clock: ManualClock):
        evidence = gm.rules.semantic_evidence.model_copy(update={"min_dwell_days": 0.01})
        gm.rules = gm.promotion.rules = gm.rules.model_copy(update={"semantic_evidence": evidence})
        memory = gm.remember(strong())
        gm.run_promotion(S)
        clock.advance(600)
        assert gm.run_promotion(S).promoted == []
        clock.advance(300)  # 900 s > 864 s in episodic; still scores 0.608
        assert gm.run_promotion(S).promoted == [memory.id]
        assert "evidence: dwell" in gm.promotion_events(memory_id=memory.id)[0].reason


class TestRoadmapRules:
    def test_a_tagged_memory_promotes_on_its_own_threshold(self, gm: GraphMem, clock: ManualClock):
        memory = gm.remember(weak(tags=["critical"]))
        other = gm.remember(weak("maybe the queue is slow"))
        result = gm.run_promotion(S, dry_run=True)
        (candidate,) = result.candidates
        assert candidate.memory.id == memory.id and candidate.threshold == 0.0
        assert "tag: critical: threshold 0.000" in candidate.reason
        assert "tag: critical: threshold 0.000" in [
            f"{n.rule}: {n.detail}" for n in candidate.breakdown.rules
        ]
        assert gm.run_promotion(S).promoted == [memory.id]
        clock.advance(60)
        # The tag is its evidence for semantic too, one tier per period.
        assert gm.run_promotion(S).promoted == [memory.id]
        assert tier_of(gm, memory.id) is Tier.SEMANTIC
        assert tier_of(gm, other.id) is Tier.WORKING

    def test_the_threshold_falls_for_older_memories(self, gm: GraphMem, clock: ManualClock):
        # Fresh 0.675; once recency is gone 0.475: under 0.6, but not under the
        # threshold of a 20-day-old memory (0.6 - 0.01 * 13 = 0.47).
        memory = gm.remember(strong())
        clock.advance(8 * 86_400)
        assert gm.run_promotion(S).promoted == []
        clock.advance(12 * 86_400)
        result = gm.run_promotion(S)
        assert result.promoted == [memory.id]
        (candidate,) = result.candidates
        assert candidate.threshold == pytest.approx(0.47)
        assert "time_decay: 20.0 days old: 0.600 -> 0.470" in candidate.reason

    def test_time_decay_can_be_switched_off(self, gm: GraphMem, clock: ManualClock):
        decay = gm.rules.time_decay.model_copy(update={"enabled": False})
        gm.rules = gm.promotion.rules = gm.rules.model_copy(update={"time_decay": decay})
        gm.remember(strong())
        clock.advance(20 * 86_400)
        assert gm.run_promotion(S).promoted == []

    def test_a_dry_run_is_not_a_trigger(self, gm: GraphMem):
        events: list[Event] = []
        gm.telemetry.subscribe(events.append)
        gm.remember(strong())
        gm.run_promotion(S, dry_run=True)
        assert "promotion.triggered" not in [e.name for e in events]
        assert gm.promotion_stats(S).runs == 0


class TestArchiveExpiry:
    def _expiring(self, gm: GraphMem, export_dir: Path, enabled: bool = True) -> None:
        expiry = gm.rules.archive_expiry.model_copy(
            update={"enabled": enabled, "after_days": 30.0, "export_dir": str(export_dir)}
        )
        gm.rules = gm.rules.model_copy(update={"archive_expiry": expiry})
        gm.archiver.rules = gm.rules

    def _archived(self, gm: GraphMem, clock: ManualClock, content: str) -> str:
        memory = gm.remember(weak(content))
        clock.advance(2 * 86_400)
        assert memory.id in gm.archive_stale().archived
        return memory.id

    def test_expired_archives_are_exported_then_deleted_and_logged(
        self, gm: GraphMem, clock: ManualClock, store: Store, tmp_path: Path
    ):
        self._expiring(gm, tmp_path / "exports")
        old = self._archived(gm, clock, "maybe the cache is cold")
        clock.advance(20 * 86_400)
        young = self._archived(gm, clock, "maybe the disk is slow")
        clock.advance(11 * 86_400)
        assert gm.archiver.expire_archived(project_id="default", dry_run=True).expired == [old]
        assert gm.get(old).tier is Tier.ARCHIVED
        result = gm.archiver.expire_archived(project_id="default")
        assert result.purged == [old]
        (line,) = Path(result.export_file).read_text().splitlines()
        exported = json.loads(line)
        assert exported["memory"]["id"] == old
        assert exported["memory"]["content"] == "maybe the cache is cold"
        with pytest.raises(NotFoundError):
            gm.get(old)
        assert gm.get(young).tier is Tier.ARCHIVED
        assert (
            count(
                store,
                "MATCH (e:PurgeEvent {memory_id: $id}) WHERE e.export_file = $file RETURN count(e)",
                id=old,
                file=result.export_file,
            )
            == 1
        )

    def test_expiry_is_off_by_default(self, gm: GraphMem, clock: ManualClock, tmp_path: Path):
        self._expiring(gm, tmp_path, enabled=False)
        memory_id = self._archived(gm, clock, "maybe the cache is cold")
        clock.advance(400 * 86_400)
        assert gm.archiver.expire_archived(project_id="default").expired == []
        assert gm.get(memory_id).tier is Tier.ARCHIVED
        assert list(tmp_path.iterdir()) == []

    def test_an_export_that_fails_deletes_nothing(
        self, gm: GraphMem, clock: ManualClock, tmp_path: Path
    ):
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("")
        self._expiring(gm, blocker)
        memory_id = self._archived(gm, clock, "maybe the cache is cold")
        clock.advance(31 * 86_400)
        with pytest.raises(OSError):
            gm.archiver.expire_archived(project_id="default")
        assert gm.get(memory_id).tier is Tier.ARCHIVED


def test_consolidation_moves_episodic_memories_of_closed_sessions(gm: GraphMem, clock: ManualClock):
    memory = gm.remember(strong())
    other = gm.remember(strong("the deploy key rotates monthly"))
    gm.close_session(S)
    assert tier_of(gm, memory.id) is Tier.EPISODIC
    clock.advance(60)
    gm.feedback(memory.id, 1)
    assert [c.memory.id for c in gm.promotion.consolidate(project_id="default", dry_run=True)] == [
        memory.id
    ]
    assert tier_of(gm, memory.id) is Tier.EPISODIC
    Scheduler(gm, busy_fraction=1.0, evaluation_interval_seconds=None).tick()
    assert tier_of(gm, memory.id) is Tier.SEMANTIC
    assert tier_of(gm, other.id) is Tier.EPISODIC


def test_database_thresholds_equal_the_python_rules(gm: GraphMem, clock: ManualClock):
    """evaluate_session computes each memory's threshold in Cypher; threshold_for
    (which explains it) must agree."""
    rng = random.Random(11)
    flat = ScoringPreset(name="flat", weights={Factor.CONFIDENCE: 1.0})
    gm.scorer = gm.promotion.scorer = ImportanceScorer(flat)
    tags = [[], ["critical"], ["user_goal"], ["other"], ["other", "user_goal"]]
    for i in range(30):
        gm.remember(strong(f"fact {i}", confidence=1.0, tags=rng.choice(tags)))
        clock.advance(rng.uniform(0, 3 * 86_400))
    candidates = gm.promotion.evaluate(S, project_id="default", limit=100)
    assert len(candidates) == 30
    now = clock.now()
    decayed = 0
    for c in candidates:
        expected = threshold_for(c.memory, gm.rules, 0.6, now)
        assert c.threshold == pytest.approx(expected.needed, abs=1e-9)
        decayed += expected.decayed < 0.6
    assert decayed > 0, "some memories are old enough for time decay"
