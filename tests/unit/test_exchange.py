"""Question and answer turns scored as one exchange: the pure pairing and pooling."""

from __future__ import annotations

import pytest

from graphmem.domain.models import Memory
from graphmem.domain.retrieval.exchange import asks, exchange_pairs, pool_exchanges


def turn(memory_id: str, content: str, at: float, session: str = "s1") -> Memory:
    return Memory(
        id=memory_id,
        project_id="p",
        session_id=session,
        content=content,
        created_at=1_000.0,
        occurred_at=at,
        updated_at=1_000.0,
    )


def pooled_relevance(relevance, memories):
    return pool_exchanges(relevance, exchange_pairs(relevance, memories))


def test_a_turn_asks_when_it_ends_with_a_question_mark_quotes_and_brackets_aside():
    assert asks("assistant: Happy to help. What's your research about?")
    assert asks('He said: "Are you coming?" ')
    assert asks("(really?)")
    assert asks("本当ですか\uff1f")
    assert not asks("Is it? I doubt it.")
    assert not asks("Coral bleaching.")
    assert not asks("")


def test_the_answer_after_a_more_relevant_question_takes_the_mean_and_the_question_falls_to_it():
    memories = {
        "q": turn("q", "What's your research about?", 1.0),
        "a": turn("a", "Coral bleaching, mostly heat stress.", 2.0),
        "next": turn("next", "Fascinating.", 3.0),
    }
    relevance = {"q": 0.64, "a": 0.08, "next": 0.30}
    assert exchange_pairs(relevance, memories) == {"a": "q"}
    pooled = pooled_relevance(relevance, memories)
    assert pooled == pytest.approx({"q": 0.36, "a": 0.36, "next": 0.30})


def test_an_answer_as_relevant_as_its_question_or_more_changes_nothing():
    memories = {
        "q": turn("q", "How many tunes will you play?", 1.0),
        "a": turn("a", "Eight tunes.", 2.0),
    }
    relevance = {"q": 0.3, "a": 0.5}
    assert pooled_relevance(relevance, memories) == relevance
    assert pooled_relevance({"q": 0.4, "a": 0.4}, memories) == {"q": 0.4, "a": 0.4}


def test_a_statement_lends_nothing_to_the_turn_after_it():
    memories = {
        "s": turn("s", "First week back at work done.", 1.0),
        "n": turn("n", "How did it feel?", 2.0),
    }
    relevance = {"s": 0.5, "n": 0.2}
    assert pooled_relevance(relevance, memories) == relevance


def test_turns_are_paired_in_the_order_they_happened_within_their_own_session():
    memories = {
        # written out of order: the answer happened after the question
        "a": turn("a", "Coral bleaching.", 2.0),
        "q": turn("q", "What do you study?", 1.0),
        # the same time in another session is not the answer
        "other": turn("other", "Jazz guitar.", 1.5, session="s2"),
    }
    pooled = pooled_relevance({"a": 0.1, "q": 0.5, "other": 0.0}, memories)
    assert pooled == pytest.approx({"a": 0.3, "q": 0.3, "other": 0.0})


def test_a_turn_that_answers_one_question_and_asks_the_next_moves_once_each_way():
    memories = {
        "q1": turn("q1", "Where do you live?", 1.0),
        "a1": turn("a1", "Berlin, and you?", 2.0),
        "a2": turn("a2", "Lisbon.", 3.0),
    }
    pooled = pooled_relevance({"q1": 0.8, "a1": 0.4, "a2": 0.0}, memories)
    # a1 is lifted to (0.8 + 0.4) / 2 by q1, and would fall to (0.4 + 0.0) / 2
    # as the question before a2: what answering lifts it to wins.
    assert pooled["q1"] == pytest.approx(0.6)
    assert pooled["a1"] == pytest.approx(0.6)
    assert pooled["a2"] == pytest.approx(0.2)
