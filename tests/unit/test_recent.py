"""A long query's last sentences as a second query vector: the split and the blend."""

from __future__ import annotations

import pytest

from graphmem.services.retrieval.recent import RecentPart, blend, recent_part

DIALOGUE = (
    '<Bart>: "I am going to perform a magic trick at the party!" '
    '<Assistant>: "That is fantastic, the audience will love your magic." '
    '<Bart>: "I get a bit nervous too. Do you have suggestions to help me relax?" '
    '<Assistant>: "Take a deep breath before the performance." '
    '<Bart>: "I really want to make that evening very special!"'
)


def test_a_long_query_gives_its_last_sentences():
    tail = recent_part(DIALOGUE, RecentPart(sentences=2))
    assert tail == (
        '<Assistant>: "Take a deep breath before the performance. '
        '<Bart>: "I really want to make that evening very special!"'
    )
    assert recent_part(DIALOGUE, RecentPart(sentences=3)).startswith("Do you have suggestions")


def test_a_short_query_or_one_with_too_few_sentences_is_not_split():
    assert recent_part("What is my doctoral research about?", RecentPart()) is None
    few = "Coral reefs bleach when warm water drives the algae out of the coral tissue. Why?"
    assert recent_part(few, RecentPart(sentences=3, min_query_terms=5)) is None
    assert recent_part(DIALOGUE, RecentPart(sentences=0)) is None
    assert recent_part(DIALOGUE, RecentPart(min_query_terms=1_000)) is None


def test_the_blend_mixes_both_cosines_with_each_lists_floor_for_what_it_lacks():
    mixed, floor = blend(
        {"a": 0.6, "b": 0.4},
        {"a": 0.2, "c": 0.9, "elsewhere": 0.8},
        whole_floor=0.3,
        recent_floor=0.1,
        weight=0.25,
        ids={"a", "b", "c", "lexical-only"},
    )
    assert mixed == pytest.approx(
        {"a": 0.75 * 0.6 + 0.25 * 0.2, "b": 0.75 * 0.4 + 0.25 * 0.1, "c": 0.75 * 0.3 + 0.25 * 0.9}
    )
    # a memory neither list holds gets the mixed floor; one that is no candidate is not scored
    assert floor == pytest.approx(0.75 * 0.3 + 0.25 * 0.1)
