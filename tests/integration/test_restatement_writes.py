"""remember judges a near match before merging it, on real FalkorDB and real embeddings.

The issue's examples: a flipped negation is flagged as a possible
contradiction, a changed number or version from the same source supersedes
the old memory, and a restatement merges keeping its wording.
"""

from __future__ import annotations

import pytest

from graphmem import GraphMem
from graphmem.domain.kinds import Status
from graphmem.domain.models import WriteResult
from graphmem.services import near_matches
from tests.integration.statements import statements_read


def written(gm: GraphMem, content: str, **fields: object):
    return gm.remember_detailed({"content": content, **fields})


class TestRestatementOnWrite:
    def test_retry_and_never_retry_are_both_kept_and_flagged(self, egm: GraphMem):
        old, _ = written(egm, "Always retry failed charges in the billing worker")
        new, outcome = written(egm, "Never retry failed charges in the billing worker")
        assert outcome.result is WriteResult.FLAGGED_CONFLICT
        assert outcome.created and new.id != old.id and outcome.related_id == old.id
        assert "never" in (outcome.reason or "")
        assert new.status is Status.CANDIDATE and new.conflicts_with == old.id
        assert new.conflict_reason == outcome.reason
        kept = egm.get(old.id)
        assert kept.occurrence_count == 1 and kept.status is Status.ACTIVE
        assert kept.superseded_by is None
        queued = [item.memory.id for item in egm.review_queue().items]
        assert new.id in queued and old.id not in queued

    def test_allowed_and_not_allowed_are_flagged(self, egm: GraphMem):
        old, _ = written(egm, "Force pushes to the main branch are allowed")
        new, outcome = written(egm, "Force pushes to the main branch are not allowed")
        assert (outcome.result, outcome.related_id) == (WriteResult.FLAGGED_CONFLICT, old.id)
        assert egm.get(new.id).conflicts_with == old.id

    def test_a_new_port_from_the_same_source_supersedes_the_old_one(self, egm: GraphMem):
        old, _ = written(egm, "The API server listens on port 8000")
        new, outcome = written(egm, "The API server listens on port 9000")
        assert outcome.result is WriteResult.SUPERSEDED
        assert outcome.created and outcome.related_id == old.id
        assert outcome.reason == "number differs: 8000 -> 9000"
        assert new.status is Status.ACTIVE and new.conflicts_with is None
        before = egm.get(old.id)
        assert before.superseded_by == new.id, "the old one stays, marked"
        (edge,) = [r for r in egm.relations([new.id])[0] if r.type.value == "SUPERSEDES"]
        assert (edge.from_id, edge.to_id, edge.rationale) == (new.id, old.id, outcome.reason)

    def test_a_new_python_version_supersedes_and_a_third_chains_on(self, egm: GraphMem):
        first, _ = written(egm, "The service runs on Python 3.11")
        second, outcome = written(egm, "The service runs on Python 3.12")
        assert (outcome.result, outcome.related_id) == (WriteResult.SUPERSEDED, first.id)
        assert outcome.reason == "version differs: 3.11 -> 3.12"
        # The superseded memory is no longer current: the next value supersedes
        # the current one, not the old one again.
        third, outcome = written(egm, "The service runs on Python 3.13")
        assert (outcome.result, outcome.related_id) == (WriteResult.SUPERSEDED, second.id)
        assert egm.get(first.id).superseded_by == second.id
        assert egm.get(second.id).superseded_by == third.id

    def test_a_new_value_from_another_agent_is_a_possible_contradiction(self, egm: GraphMem):
        old, _ = written(egm, "The API server listens on port 8000", agent_id="deployer")
        new, outcome = written(egm, "The API server listens on port 9000", agent_id="reviewer")
        assert (outcome.result, outcome.related_id) == (WriteResult.FLAGGED_CONFLICT, old.id)
        assert egm.get(old.id).superseded_by is None
        assert new.status is Status.CANDIDATE

    def test_a_less_certain_new_value_is_flagged_not_an_update(self, egm: GraphMem):
        sure, _ = written(egm, "the cache TTL is 30 seconds", confidence=0.9)
        unsure, outcome = written(egm, "the cache TTL might be 60 seconds", confidence=0.4)
        assert (outcome.result, outcome.related_id) == (WriteResult.FLAGGED_CONFLICT, sure.id)
        assert outcome.reason == (
            "number differs: 30 -> 60, stated with less confidence (0.4 < 0.9)"
        )
        assert egm.get(sure.id).superseded_by is None and unsure.status is Status.CANDIDATE

    def test_a_restatement_merges_and_keeps_its_wording(self, egm: GraphMem):
        old, _ = written(egm, "Deploys go out every Tuesday after the standup")
        merged, outcome = written(egm, "Deployments go out every Tuesday after standup")
        assert (outcome.result, outcome.created, outcome.id) == (
            WriteResult.MERGED_NEAR,
            False,
            old.id,
        )
        assert outcome.match == "near" and outcome.reason.startswith("same statement")
        assert merged.occurrence_count == 2
        assert merged.variants == ["Deployments go out every Tuesday after standup"]
        assert egm.get(old.id).variants == merged.variants
        # The same wording again is not a new variant; the exact text is no variant.
        again, outcome = written(egm, "Deploys go out every Tuesday after the standup")
        assert outcome.result is WriteResult.MERGED_EXACT
        assert again.variants == merged.variants and again.occurrence_count == 3

    @pytest.mark.parametrize("scan_pairs", [0, near_matches.SCAN_PAIRS])
    def test_a_restatement_of_a_memory_used_many_times_still_merges(
        self, egm: GraphMem, monkeypatch: pytest.MonkeyPatch, scan_pairs: int
    ):
        # Each use writes the memory, and FalkorDB 4.16 leaves its old vector in
        # the index each time: forty of them hid it from the nearest twenty and
        # eighty, so the restatement was written as a new memory. Through the
        # index (no pair is scanned) it is asked again, larger; a small project
        # is compared whole instead, in one statement.
        monkeypatch.setattr(near_matches, "SCAN_PAIRS", scan_pairs)
        egm.remember_many([{"content": f"Note {n} on watering the tomato beds"} for n in range(30)])
        old, _ = written(
            egm, "The payment service retries failed webhooks three times with backoff"
        )
        for _ in range(40):
            egm.record_access(old.id)
        with statements_read(egm) as read:
            kept, outcome = written(
                egm, "Payment service: failed webhooks are retried 3 times with back-off"
            )
        assert (outcome.result, kept.id) == (WriteResult.MERGED_NEAR, old.id)
        scans, lookups = read.count("near_duplicates_scan"), read.count("near_duplicates")
        assert (scans, lookups > 0) == ((1, False) if scan_pairs else (0, True))

    def test_remember_many_reports_each_outcome(self, egm: GraphMem):
        ids = egm.remember_many(
            [
                {"content": "Always retry failed charges in the billing worker"},
                {"content": "The API server listens on port 8000"},
                {"content": "Deploys go out every Tuesday after the standup"},
            ]
        )
        outcomes = egm.remember_many_detailed(
            [
                {"content": "Invoices are rendered with WeasyPrint"},
                {"content": "Always retry failed charges in the billing worker"},
                {"content": "Deployments go out every Tuesday after standup"},
                {"content": "The API server listens on port 9000"},
                {"content": "Never retry failed charges in the billing worker"},
            ]
        )
        assert [o.result for o in outcomes] == [
            WriteResult.CREATED,
            WriteResult.MERGED_EXACT,
            WriteResult.MERGED_NEAR,
            WriteResult.SUPERSEDED,
            WriteResult.FLAGGED_CONFLICT,
        ]
        assert [o.related_id for o in outcomes[3:]] == [ids[1], ids[0]]
        assert outcomes[1].id == ids[0] and outcomes[2].id == ids[2]

    def test_without_dedup_nothing_is_judged(self, egm: GraphMem):
        written(egm, "The API server listens on port 8000")
        outcomes = egm.remember_many_detailed(
            [{"content": "The API server listens on port 9000"}], dedup=False
        )
        assert outcomes[0].result is WriteResult.CREATED and outcomes[0].related_id is None

    def test_without_embeddings_a_flipped_negation_is_flagged(self, gm: GraphMem):
        assert gm.embedder is None
        old, _ = written(gm, "retry the payment webhook three times with jitter")
        new, outcome = written(gm, "do not retry the payment webhook three times with jitter")
        assert (outcome.result, outcome.related_id) == (WriteResult.FLAGGED_CONFLICT, old.id)
        assert gm.get(old.id).occurrence_count == 1 and new.conflicts_with == old.id


DAY = 86_400.0


def turn(gm: GraphMem, content: str, at: float, **fields: object):
    return gm.remember_detailed(
        {"content": content, "memory_type": "event", "occurred_at": at, **fields}
    )


class TestEventsAreKeptAsSaid:
    """Conversation turns are events: what was said at a time, never a claim
    that a later turn replaces or contradicts."""

    def test_the_same_words_on_another_day_are_another_turn(self, egm: GraphMem, clock):
        now = clock.now()
        first, _ = turn(egm, "Ben: Haha", now - 2 * DAY)
        again, outcome = turn(egm, "Ben: Haha!", now - DAY)
        assert outcome.result is WriteResult.CREATED and again.id != first.id
        assert egm.get(first.id).occurrence_count == 1

    def test_a_turn_written_twice_at_once_is_one_memory(self, egm: GraphMem, clock):
        now = clock.now()
        first, _ = turn(egm, "Ana: I adopted a dog!", now - 100.0)
        same, outcome = turn(egm, "Ana: I adopted a dog!", now - 90.0)
        assert outcome.result is WriteResult.MERGED_EXACT and same.id == first.id
        (once, twice) = egm.remember_many(
            [
                {"content": "Ana: See you soon", "memory_type": "event", "occurred_at": now - 50},
                {"content": "Ana: See you soon", "memory_type": "event", "occurred_at": now - 45},
            ]
        )
        assert once == twice

    def test_turns_never_supersede_or_flag_each_other(self, egm: GraphMem, clock):
        now = clock.now()
        pairs = [
            (
                "Ana: Thanks, Ben! Your kind words really mean a lot to me.",
                "Ana: Wow, Ben! Your kind words really mean a lot to me.",
            ),
            (
                "Ben: Thanks, Ana! Family time matters to me. What's up with you lately?",
                "Ben: Hey Ana! Good to see you! I'm swamped with the kids and work. "
                "What's up with you? Anything new?",
            ),
            ("Ana: I ran 5k this morning.", "Ana: I ran 10k this morning."),
            ("Ben: I love my new job.", "Ben: I don't love my new job."),
        ]
        for n, (said, later) in enumerate(pairs):
            first, _ = turn(egm, said, now - (n + 2) * DAY)
            second, outcome = turn(egm, later, now - (n + 1) * DAY)
            assert outcome.result is WriteResult.CREATED, (later, outcome.reason)
            assert second.status is Status.ACTIVE and second.conflicts_with is None
            assert egm.get(first.id).superseded_by is None
        hint = "Ana kind words really mean a lot"
        shown = {item.memory.id for item in egm.knowledge_context(hint).items}
        kind_words = {m.id for m in egm.list(first=100).items if "kind words" in m.content}
        assert len(kind_words) == 2 and kind_words <= shown, "both turns stay findable"

    def test_a_claim_and_an_event_with_the_same_words_stay_apart(self, egm: GraphMem, clock):
        fact, _ = written(egm, "The deploy failed on Friday.", memory_type="fact")
        event, outcome = turn(egm, "The deploy failed on Friday.", clock.now() - 10.0)
        assert outcome.result is WriteResult.CREATED and event.id != fact.id


class TestUnreadableTexts:
    def test_texts_without_words_are_kept_each_as_said(self, egm: GraphMem):
        for texts in (("!!!", "?!"), ("42", "42"), ("...", "---")):
            ids = [written(egm, text)[0].id for text in texts]
            assert len(set(ids)) == 2, texts
            outcomes = egm.remember_many_detailed([{"content": t} for t in texts])
            assert all(o.result is WriteResult.CREATED for o in outcomes)


class TestJudgeFailure:
    def test_a_judge_error_refuses_the_batch_naming_the_item(
        self, egm: GraphMem, monkeypatch, graph_snapshot
    ):
        from graphmem.domain.errors import InvalidInputError
        from graphmem.services import near_matches

        written(egm, "The API server listens on port 8000")
        real = near_matches.judge

        def failing(new: str, existing: str, similarity: float, **kw: object):
            if "9000" in new:
                raise ValueError("cannot read this text")
            return real(new, existing, similarity, **kw)

        monkeypatch.setattr(near_matches, "judge", failing)
        before = graph_snapshot()
        batch = [
            {"content": "Deploys go out on Tuesdays."},
            {"content": "The API server listens on port 9000"},
        ]
        try:
            egm.remember_many(batch)
        except InvalidInputError as error:
            assert error.field == "items[1].content"
            assert "cannot read this text" in str(error)
        else:
            raise AssertionError("the batch was written")
        assert graph_snapshot() == before, "nothing of the batch is written"


class TestCorrectionsOnWrite:
    """A correction is worded unlike what it corrects, often under the candidate
    cosine: it is read there only where its text names what it replaces, or
    changes one value or name in the same words; other writes see what they saw."""

    def test_a_correction_naming_the_old_value_supersedes_it(self, egm: GraphMem):
        old, _ = written(egm, "Maximum line length is 100 characters.")
        new, outcome = written(egm, "Line length is now 120 (was 100).")
        assert (outcome.result, outcome.related_id) == (WriteResult.SUPERSEDED, old.id)
        assert outcome.reason == "corrects 100 -> 120"
        assert egm.get(old.id).superseded_by == new.id

    def test_a_correction_from_another_source_is_flagged_naming_both_values(self, egm: GraphMem):
        old, _ = written(egm, "Type checking uses mypy in strict mode.", agent_id="ana")
        new, outcome = written(egm, "Type checking uses pyright instead of mypy.", agent_id="ben")
        assert (outcome.result, outcome.related_id) == (WriteResult.FLAGGED_CONFLICT, old.id)
        assert new.conflict_reason == "corrects mypy -> pyright"
        assert egm.get(old.id).superseded_by is None

    def test_one_value_changed_in_the_same_words_supersedes_far_under_the_floor(
        self, egm: GraphMem
    ):
        old, _ = written(egm, "Dependencies are pinned in requirements.lock.")
        _, outcome = written(egm, "Dependencies are pinned in uv.lock.")
        assert (outcome.result, outcome.related_id) == (WriteResult.SUPERSEDED, old.id)
        assert (outcome.reason or "").startswith("identifier differs: requirements.lock -> uv.lock")

    def test_a_restatement_of_the_corrected_value_merges_into_the_correction(self, egm: GraphMem):
        written(egm, "The dev server listens on port 8080.")
        correction, outcome = written(egm, "The dev server listens on port 8000, not 8080.")
        assert outcome.result is WriteResult.SUPERSEDED
        _, again = written(egm, "The dev server listens on port 8000.")
        assert (again.result, again.id) == (WriteResult.MERGED_NEAR, correction.id)

    def test_distinct_statements_and_what_happened_stay_apart(self, egm: GraphMem):
        cache, _ = written(egm, "the old cache was in /tmp")
        _, outcome = written(egm, "deploys read the build cache")
        assert outcome.result is WriteResult.CREATED
        written(egm, "the office moved to Leipzig")
        _, moved = written(egm, "the office moved to Dresden")
        assert moved.result is WriteResult.CREATED
        assert egm.get(cache.id).superseded_by is None
