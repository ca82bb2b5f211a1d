"""Candidate staging, dedup, the review queue and the status migration."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import Status, Tier
from graphmem.store.falkordb import FalkorStore
from tests.conftest import cypher


def extracted(content: str, **extra) -> dict:
    return {"content": content, "source": "auto_extracted", "memory_type": "fact", **extra}


def count(store: FalkorStore, query: str) -> int:
    return cypher(store, query)[0][0]


class TestStatus:
    def test_auto_extracted_is_candidate_and_manual_is_active(self, gm: GraphMem):
        assert gm.remember(extracted("a")).status is Status.CANDIDATE
        assert gm.remember({"content": "b", "source": "manual"}).status is Status.ACTIVE
        assert gm.remember({"content": "c"}).status is Status.ACTIVE


class TestDedup:
    def test_second_occurrence_merges_and_activates(self, gm: GraphMem, store: FalkorStore):
        first, created = gm.remember_detailed(
            extracted("The CI cache lives in S3", tags=["ci"], evidence=["log 1"])
        )
        assert created.created and first.status is Status.CANDIDATE
        again, merged = gm.remember_detailed(
            extracted("the ci cache  lives in S3!", tags=["infra"], evidence=["log 2"])
        )
        assert not merged.created and merged.id == first.id and merged.match == "exact"
        assert again.occurrence_count == 2
        assert again.status is Status.ACTIVE
        assert again.tags == ["ci", "infra"] and again.evidence == ["log 1", "log 2"]
        assert count(store, "MATCH (m:Memory) RETURN count(m)") == 1
        kinds = [(e.kind, e.signal) for e in gm.staging_events(first.id)]
        assert ("merged", "exact") in kinds and ("activated", "recurrence") in kinds

    def test_duplicates_within_one_batch(self, gm: GraphMem):
        ids = gm.remember_many(
            [extracted("same thing"), extracted("Same thing."), extracted("other")]
        )
        assert ids[0] == ids[1] != ids[2]
        memory = gm.get(ids[0])
        assert memory.occurrence_count == 2 and memory.status is Status.ACTIVE

    def test_different_memories_do_not_merge(self, gm: GraphMem):
        a = gm.remember(extracted("deploys happen on Tuesdays"))
        b = gm.remember(extracted("deploys happen on Thursdays"))
        assert a.id != b.id and gm.get(a.id).occurrence_count == 1

    def test_dedup_is_per_project_and_can_be_turned_off(self, gm: GraphMem):
        mine = gm.remember(extracted("shared words"))
        theirs = gm.remember(extracted("shared words"), project_id="other")
        assert mine.id != theirs.id
        (again,) = gm.remember_many([extracted("shared words")], dedup=False)
        assert again != mine.id

    def test_archived_memories_do_not_absorb_new_occurrences(self, gm: GraphMem):
        rejected = gm.remember(extracted("noise"))
        gm.reject(rejected.id, "not useful")
        fresh = gm.remember(extracted("noise"))
        assert fresh.id != rejected.id and fresh.status is Status.CANDIDATE


class TestSignals:
    def test_feedback_over_the_threshold_activates(self, gm: GraphMem):
        memory = gm.remember(extracted("x"))
        assert gm.feedback(memory.id, 1).status is Status.CANDIDATE
        assert gm.feedback(memory.id, 1).status is Status.ACTIVE
        assert [e.signal for e in gm.staging_events(memory.id)] == ["feedback"]

    def test_feedback_under_the_threshold_does_not(self, gm: GraphMem):
        memory = gm.remember(extracted("x"))
        gm.feedback(memory.id, 1)
        gm.feedback(memory.id, -1)
        gm.feedback(memory.id, 1)
        assert gm.get(memory.id).status is Status.CANDIDATE

    def test_evaluator_evidence(self, gm: GraphMem):
        memory = gm.remember(extracted("x"))
        assert gm.record_evidence(memory.id, 0.5).status is Status.CANDIDATE
        assert gm.record_evidence(memory.id, 0.3).evaluator_relevance == 0.5
        assert gm.record_evidence(memory.id, 0.9).status is Status.ACTIVE
        with pytest.raises(InvalidInputError):
            gm.record_evidence(memory.id, 1.5)

    @pytest.mark.parametrize(
        ("confirm", "signal"),
        [
            (lambda gm, i: gm.pin(i), "manual:pin"),
            (lambda gm, i: gm.update(i, {"content": "edited"}), "manual:edit"),
            (lambda gm, i: gm.update(i, {"memory_type": "risk"}), "manual:edit"),
            (lambda gm, i: gm.approve(i), "manual:approve"),
        ],
    )
    def test_manual_confirmation(self, gm: GraphMem, confirm, signal):
        memory = gm.remember(extracted("x"))
        assert confirm(gm, memory.id).status is Status.ACTIVE
        assert [(e.kind, e.signal) for e in gm.staging_events(memory.id)] == [("activated", signal)]

    def test_promotion_twice_is_a_noop_with_one_log_entry(self, gm: GraphMem, store: FalkorStore):
        memory = gm.remember(extracted("x"))
        gm.approve(memory.id)
        gm.approve(memory.id)
        gm.pin(memory.id)
        assert len(gm.staging_events(memory.id)) == 1
        assert count(store, "MATCH (e:StagingEvent {kind: 'activated'}) RETURN count(e)") == 1


class TestReviewQueue:
    def test_lists_candidates_with_evidence_in_either_order(self, gm: GraphMem, clock: ManualClock):
        old = gm.remember(extracted("old one"))
        clock.advance(60)
        busy = gm.remember(extracted("busy one"))
        gm.feedback(busy.id, 1)
        gm.remember({"content": "active one"})
        page = gm.review_queue()
        assert [i.memory.id for i in page.items] == [old.id, busy.id]
        assert page.items[0].age_seconds == 60 and page.items[1].feedback == 1
        by_evidence = gm.review_queue(order="evidence")
        assert [i.memory.id for i in by_evidence.items] == [busy.id, old.id]

    def test_pagination(self, gm: GraphMem):
        ids = gm.remember_many([extracted(f"candidate {i}") for i in range(5)])
        first = gm.review_queue(first=3)
        rest = gm.review_queue(first=3, after=first.end_cursor)
        assert first.has_next and not rest.has_next
        assert sorted(i.memory.id for i in first.items + rest.items) == sorted(ids)

    def test_reject_archives_with_reason_and_stays_retrievable(self, gm: GraphMem):
        memory = gm.remember(extracted("over-scoped learning"))
        rejected = gm.reject(memory.id, "too specific")
        assert (
            rejected.tier is Tier.ARCHIVED and rejected.archive_reason == "rejected: too specific"
        )
        assert gm.list().items == []
        assert [m.id for m in gm.list({"include_archived": True}).items] == [memory.id]
        assert gm.review_queue().items == []
        with pytest.raises(ConflictError):
            gm.reject(memory.id, "again")
        with pytest.raises(InvalidInputError):
            gm.reject(gm.remember(extracted("y")).id, "  ")

    def test_merge_memories(self, gm: GraphMem):
        into = gm.remember(extracted("use ruff", tags=["lint"]))
        source = gm.remember(extracted("run ruff before commits", tags=["git"]))
        merged = gm.merge_memories(into.id, source.id)
        assert merged.occurrence_count == 2 and merged.status is Status.ACTIVE
        assert merged.tags == ["lint", "git"]
        absorbed = gm.get(source.id)
        assert absorbed.tier is Tier.ARCHIVED and absorbed.merged_into == into.id
        stale = [f for f in gm.evaluate().findings if f.code == "IMPORTANCE_STALE"]
        assert stale == [], "the survivor is rescored with what it inherited"
        with pytest.raises(ConflictError):
            gm.merge_memories(into.id, source.id)
        with pytest.raises(NotFoundError) as error:
            gm.merge_memories(into.id, "missing")
        assert error.value.field == "from_id"

    def test_edit_then_approve(self, gm: GraphMem):
        memory = gm.remember(extracted("typo in it"))
        edited = gm.update(memory.id, {"content": "no typo in it"})
        assert edited.status is Status.ACTIVE and edited.content == "no typo in it"

    def test_bulk_review_dry_run_then_apply(self, gm: GraphMem):
        noisy = gm.remember_many([extracted(f"noise {i}", tags=["noise"]) for i in range(3)])
        keep = gm.remember(extracted("signal", tags=["keep"]))
        dry = gm.bulk_review({"tags": ["noise"]}, "reject", reason="noise", dry_run=True)
        assert sorted(dry.matched) == sorted(noisy) and dry.applied == []
        assert gm.get(noisy[0]).tier is Tier.WORKING
        done = gm.bulk_review({"tags": ["noise"]}, "reject", reason="noise", dry_run=False)
        assert sorted(done.applied) == sorted(noisy)
        assert {gm.get(i).tier for i in noisy} == {Tier.ARCHIVED}
        approved = gm.bulk_review({}, "approve", dry_run=False)
        assert approved.applied == [keep.id]
        with pytest.raises(InvalidInputError):
            gm.bulk_review({}, "reject", dry_run=False)

    def test_listing_can_hide_candidates(self, gm: GraphMem):
        candidate = gm.remember(extracted("c"))
        active = gm.remember({"content": "a"})
        assert {m.id for m in gm.list().items} == {candidate.id, active.id}
        assert [m.id for m in gm.list({"include_candidates": False}).items] == [active.id]


class TestMigration:
    def test_marks_memories_without_status_active_and_is_idempotent(
        self, gm: GraphMem, store: FalkorStore
    ):
        cypher(
            store,
            "UNWIND range(1, 5) AS i CREATE (:Memory {id: 'old-' + toString(i), "
            "project_id: 'default', session_id: 'default', content: 'legacy ' + toString(i), "
            "created_at: 1.0, updated_at: 1.0})",
        )
        assert gm.get("old-1").status is Status.ACTIVE, "reads tolerate a missing status"
        reports = gm.migrate()
        assert [(r.version, r.changed) for r in reports] == [(1, 5), (2, 5), (3, 5)]
        assert count(store, "MATCH (m:Memory) WHERE m.status IS NULL RETURN count(m)") == 0
        assert gm.migrate() == []
        # migrated memories are found by full text, in their own project only
        assert [h.memory.id for h in gm.search("legacy 4", mode="FULLTEXT").hits][:1] == ["old-4"]
        assert gm.search("legacy 4", mode="FULLTEXT", project_id="other").hits == []
        # migrated memories now take part in exact dedup
        again = gm.remember({"content": "Legacy 3"})
        assert again.id == "old-3" and again.occurrence_count == 2


class TestNearDuplicates:
    """With embeddings on, a close paraphrase merges; a different memory does not."""

    def test_a_near_duplicate_merges_and_a_different_memory_does_not(self, egm: GraphMem):
        gm = egm
        first = gm.remember(extracted("The nightly build fails when the Redis cache is cold"))
        again, outcome = gm.remember_detailed(
            extracted("Nightly build fails when the redis cache is cold, again", tags=["ci"])
        )
        assert not outcome.created and outcome.match == "near" and outcome.id == first.id
        assert again.occurrence_count == 2 and again.status is Status.ACTIVE
        assert again.tags == ["ci"]
        other, created = gm.remember_detailed(extracted("Invoices are rendered with WeasyPrint"))
        assert created.created and other.id != first.id
        kinds = [(e.kind, e.signal) for e in gm.staging_events(first.id)]
        assert ("merged", "near") in kinds

    def test_without_embeddings_token_overlap_decides(self, gm: GraphMem):
        assert gm.embedder is None
        first = gm.remember(extracted("retry the payment webhook three times with jitter"))
        again, outcome = gm.remember_detailed(
            extracted("retry payment webhook three times with jitter", tags=["x"])
        )
        # 6 of the 7 distinct words shared: Jaccard 6/7 >= 0.8
        assert (outcome.created, outcome.match, outcome.id) == (False, "near", first.id)
        assert again.occurrence_count == 2
        other, created = gm.remember_detailed(extracted("retry the upload three times"))
        assert created.created and other.id != first.id
