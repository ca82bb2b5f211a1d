"""A time the question names, as a retrieval channel (domain/retrieval/when.py),
against a real FalkorDB and the real embedding model.

A decision superseded twice: asked about May, search and knowledgeContext
answer with the May decision (kept, though superseded, naming its successor)
and the rule that constrained it; asked about now, with the decision in force.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.retrieval.when import TimeChannel

pytestmark = pytest.mark.backends("falkordb")  # the pipeline's logic; its reads are any search's


def at(month: int, day: int) -> str:
    return datetime(2025, month, day, 9, tzinfo=UTC).isoformat()


@pytest.fixture
def queue(egm: GraphMem, clock: ManualClock) -> dict[str, str]:
    """Three job-queue decisions, each superseding the one before, a rule on the
    second, and unrelated memories around them."""
    clock.set(datetime(2025, 9, 10, tzinfo=UTC).timestamp())
    written = {
        key: egm.remember({"content": content, "memory_type": kind, "occurred_at": when}).id
        for key, content, kind, when in (
            ("celery", "Decision: the job queue runs on Celery with Redis.", "decision", at(2, 3)),
            ("arq", "Decision: the job queue moves to arq on Redis.", "decision", at(5, 12)),
            ("dramatiq", "Decision: the job queue runs on Dramatiq now.", "decision", at(8, 4)),
            (
                "rule",
                "Rule: every worker task must be idempotent; retries happen.",
                "rule",
                at(5, 13),
            ),
            ("ci", "Decision: CI runs on GitHub Actions.", "decision", at(3, 1)),
            ("lint", "Convention: ruff formats and lints all Python.", "convention", at(1, 20)),
        )
    }
    egm.supersede(written["celery"], written["arq"], rationale="Celery lacked EU residency")
    egm.supersede(written["arq"], written["dramatiq"], rationale="arq cost too much")
    egm.relate(written["rule"], written["arq"], "CONSTRAINS", rationale="arq retries tasks")
    return written


PAST = "What did we decide in May about the job queue?"
NOW = "What do we use for the job queue now?"


def hit_ids(result) -> list[str]:
    return [hit.memory.id for hit in result.hits]


def test_a_question_about_may_answers_with_the_decision_of_may(egm, queue):
    result = egm.search(PAST, mode="HYBRID", limit=5)
    first = result.hits[0]
    assert first.memory.id == queue["arq"]
    # Kept though superseded, naming what replaced it.
    assert first.memory.superseded_by == queue["dramatiq"]
    assert any("near the time the query names ('in May')" in n for n in first.explanation.notes)
    assert any("2025-05-01 to 2025-05-31" in note for note in result.notes)
    assert any("superseded memories that held then are kept" in n for n in result.notes)
    # The rule that constrained it stays reachable.
    assert queue["rule"] in hit_ids(result)


def test_a_question_about_now_answers_with_the_decision_in_force(egm, queue):
    result = egm.search(NOW, mode="HYBRID", limit=5)
    found = hit_ids(result)
    assert found[0] == queue["dramatiq"]
    assert queue["arq"] not in found and queue["celery"] not in found
    assert not any("names a time" in note for note in result.notes)


def test_without_the_time_channel_may_is_replaced_by_its_successor(egm, queue):
    kept = egm.retrieval.config
    egm.retrieval.config = dataclasses.replace(kept, time=TimeChannel(weight=0.0))
    try:
        found = hit_ids(egm.search(PAST, mode="HYBRID", limit=5))
    finally:
        egm.retrieval.config = kept
    assert queue["arq"] not in found
    assert found[0] == queue["dramatiq"]


def test_knowledge_context_reads_the_project_as_it_was_in_may(egm, queue):
    result = egm.knowledge_context(PAST, max_results=5)
    items = [item.memory.id for item in result.items]
    assert items[0] == queue["arq"]
    assert queue["rule"] in items


def test_a_date_no_memory_is_near_says_so_and_ranks_as_without_it(egm, queue):
    result = egm.search("What did we decide in May 2019 about the job queue?", limit=5)
    assert any("no memory found is near" in note for note in result.notes)
    assert hit_ids(result)[0] == queue["dramatiq"]


@pytest.mark.parametrize("mode", ["VECTOR", "FULLTEXT"])
def test_single_retriever_modes_read_the_past_without_weighing_time(egm, queue, mode):
    """A question about May keeps the May decision in every mode; VECTOR and
    FULLTEXT rank it by their own retriever, as they rank with time off."""
    result = egm.search(PAST, mode=mode, limit=5)
    found = {hit.memory.id: hit.score for hit in result.hits}
    assert queue["arq"] in found
    assert any("not weighed by time" in note for note in result.notes)
    assert any("superseded memories that held then are kept" in n for n in result.notes)
    kept = egm.retrieval.config
    egm.retrieval.config = dataclasses.replace(kept, time=TimeChannel(weight=0.0))
    try:
        unweighed = {hit.memory.id: hit.score for hit in egm.search(PAST, mode=mode).hits}
    finally:
        egm.retrieval.config = kept
    assert queue["arq"] not in unweighed
    assert found[queue["dramatiq"]] == pytest.approx(unweighed[queue["dramatiq"]])


def test_a_time_too_far_to_be_a_date_is_no_time_and_no_error(egm, queue):
    for query in ("What happened 5000 years ago?", "What happened 9999999999 days ago?"):
        result = egm.search(query, limit=5)
        assert not any("names a time" in note for note in result.notes)


def test_full_text_does_not_match_the_words_of_a_date(egm, clock):
    """ "Around May 14, 2025" says when: a turn that holds "around" and "may" by
    chance must not outrank the one that answers what was asked."""
    clock.set(datetime(2025, 9, 10, tzinfo=UTC).timestamp())
    chance = egm.remember({"content": "Sam: you around? May I call you tonight?"}).id
    answer = egm.remember({"content": "Sam: I booked the flights to Lisbon."}).id
    found = hit_ids(egm.search("Around May 14, 2025: what did Sam book?", mode="FULLTEXT"))
    assert found[0] == answer
    # The same words, asked without naming a date, still match as words.
    assert chance in hit_ids(egm.search("is Sam around?", mode="FULLTEXT"))


def test_a_question_asking_for_a_day_alone_is_answered_by_that_days_memories(egm, queue):
    """No word of "What happened on May 12, 2025?" is in a memory: the
    memories of that day answer it, found by the time retriever."""
    result = egm.search("What happened on May 12, 2025?", limit=5)
    # Found by time: that day's decision; the rule on it follows by its relation.
    by_time = [
        hit.memory.id
        for hit in result.hits
        if any(r.retriever.value == "time" for r in hit.explanation.retrievers)
    ]
    assert by_time == [queue["arq"]]
    assert hit_ids(result)[0] == queue["arq"]
    assert [note for note in result.notes if "time" in note] == [
        "the question asks only for a time ('May 12, 2025': 2025-05-12); the memories "
        "of that time answer it, nearest its words in meaning first"
    ]
    assert "time" in [hit.retriever.value for hit in result.hits[0].explanation.retrievers]
    assert "time" in [r.value for r in result.retrievers]
    context = egm.knowledge_context("Anything from Tuesday, May 13, 2025?", max_results=5)
    assert [item.memory.id for item in context.items][:1] == [queue["rule"]]


def test_a_relative_time_asked_alone_reads_the_clock(egm, queue, clock):
    """ "Last week", asked on Wednesday 10 September 2025: 1 to 7 September."""
    week = egm.remember(
        {"content": "Moved the nightly export to 02:00 UTC.", "occurred_at": at(9, 2)}
    ).id
    assert hit_ids(egm.search("What did we do last week?", limit=5)) == [week]


def test_a_day_asked_alone_without_its_year_is_the_latest_that_holds_memories(egm, clock):
    """Asked on 1 October 2026, "May 12" of 2026 holds nothing, and the
    candidates words and meaning find (forty standups of 2026 that say
    "happened") hold no May 12 either: the May 12 that answers is 2025's."""
    clock.set(datetime(2026, 10, 1, tzinfo=UTC).timestamp())
    egm.remember_many(
        [
            {
                "content": f"Standup {i}: nothing happened worth noting.",
                "occurred_at": datetime(2026, 6, 1 + i % 28, 9, i, tzinfo=UTC).isoformat(),
            }
            for i in range(40)
        ]
    )
    arq = egm.remember(
        {"content": "Decision: the job queue moves to arq on Redis.", "occurred_at": at(5, 12)}
    ).id
    result = egm.search("What happened on May 12?", limit=5)
    assert hit_ids(result)[:1] == [arq]
    assert any("2025-05-12" in note for note in result.notes)


def test_a_day_asked_alone_that_holds_nothing_answers_nothing_and_says_so(egm, queue):
    result = egm.search("What happened on June 1, 2025?", limit=5)
    assert result.hits == []
    assert [note for note in result.notes if "June 1, 2025" in note] == [
        "the question asks only for a time ('June 1, 2025': 2025-06-01); "
        "no memory the filters allow happened then"
    ]


def test_a_question_with_words_of_its_own_is_no_time_alone(egm, queue):
    result = egm.search("What happened to the job queue on May 12, 2025?", limit=5)
    assert not any("asks only for a time" in note for note in result.notes)
    assert queue["arq"] in hit_ids(result)
