"""The retrievers' findings fused: candidates, and the deeper scores that only lend
theirs (pure logic, no store)."""

from __future__ import annotations

import pytest

from graphmem.domain.models import Memory
from graphmem.domain.retrieval.answerable import QueryWord
from graphmem.domain.retrieval.explain import Retriever
from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.services.retrieval.candidates import Candidates
from graphmem.services.retrieval.statistics import Scope

FUSION = ScoreFusion(vector_weight=0.8, lexical_half=0.1, short_power=0.0)
"""Substance off: these tests are about floors and deeper scores, on short texts."""


def memory(memory_id: str) -> Memory:
    return Memory(
        id=memory_id,
        project_id="p",
        session_id="s",
        content=f"text of {memory_id}",
        created_at=1_000.0,
        updated_at=1_000.0,
    )


def found_with_deeper_scores() -> Candidates:
    """Each retriever was asked for 4: its best 2 are candidates, the next 2 only scored."""
    found = Candidates(scope=Scope("p", None, 0), text="query")
    found.add(Retriever.VECTOR, [(memory("v1"), 0.9), (memory("v2"), 0.8)])
    found.add_scores(Retriever.VECTOR, [("f1", 0.7), ("deep", 0.6)])
    found.add(Retriever.FULLTEXT, [(memory("f1"), 0.5), (memory("f2"), 0.4)])
    found.add_scores(Retriever.FULLTEXT, [("v2", 0.3), ("gone", 0.2)])
    return found


def test_a_candidate_takes_its_own_deeper_score_from_the_other_retriever_not_its_floor():
    relevance = found_with_deeper_scores().relevance(FUSION, 4, exchanges=False)

    assert relevance["f1"] == pytest.approx(0.8 * 0.7 + 0.2 * FUSION.lexical(0.5))
    assert relevance["v2"] == pytest.approx(0.8 * 0.8 + 0.2 * FUSION.lexical(0.3))


def test_the_floor_of_a_full_list_is_its_deepest_score_scored_only_or_not():
    relevance = found_with_deeper_scores().relevance(FUSION, 4, exchanges=False)

    # v1 is not in full text's four: it gets their lowest, 0.2; f2 gets the vector 0.6.
    assert relevance["v1"] == pytest.approx(0.8 * 0.9 + 0.2 * FUSION.lexical(0.2))
    assert relevance["f2"] == pytest.approx(0.8 * 0.6 + 0.2 * FUSION.lexical(0.4))


def test_scored_only_ids_are_not_ranked_and_their_hits_explain_candidates():
    found = found_with_deeper_scores()
    relevance = found.relevance(FUSION, 4, exchanges=False)

    assert set(relevance) == {"v1", "v2", "f1", "f2"}
    assert [(h.retriever, h.rank) for h in found.explained("f1")] == [
        (Retriever.VECTOR, 3),
        (Retriever.FULLTEXT, 1),
    ]


def test_keeping_fewer_candidates_keeps_the_deeper_scores_and_the_floor():
    found = found_with_deeper_scores()
    found.keep([m for i, m in found.memories.items() if i != "v1"])
    relevance = found.relevance(FUSION, 4, exchanges=False)

    assert "v1" not in relevance
    # The vector list lost v1 and holds three scores: fewer than asked, so its floor is 0.
    assert relevance["f2"] == pytest.approx(0.2 * FUSION.lexical(0.4))
    assert relevance["f1"] == pytest.approx(0.8 * 0.7 + 0.2 * FUSION.lexical(0.5))


def test_a_reaction_that_carries_a_name_falls_below_the_turn_that_says_something() -> None:
    found = Candidates(scope=Scope("p", None, 0), text="Which race did Sam sign up for?")
    short = memory("short").model_copy(update={"content": "Sam: Oh man."})
    told = memory("told").model_copy(
        update={"content": "Sam: I'm doing the Parkland Ten! Training plan starts Monday."}
    )
    found.add(Retriever.VECTOR, [(short, 0.57), (told, 0.52)])
    found.add(Retriever.FULLTEXT, [(short, 0.3), (told, 0.3)])

    fused = found.relevance(ScoreFusion(), 20, exchanges=False)
    plain = found.relevance(ScoreFusion(short_power=0.0), 20, exchanges=False)

    assert plain["short"] > plain["told"]
    assert fused["told"] == plain["told"]
    assert fused["short"] < fused["told"]


def test_one_retriever_keeps_its_own_value_whatever_the_length() -> None:
    found = Candidates(scope=Scope("p", None, 0), text="Sam")
    found.add(Retriever.FULLTEXT, [(memory("short").model_copy(update={"content": "Sam!"}), 0.4)])

    assert found.relevance(ScoreFusion(), 20)["short"] == ScoreFusion().lexical(0.4)


def test_the_words_of_a_named_time_are_not_weighed_as_words_no_memory_holds() -> None:
    found = Candidates(scope=Scope("p", None, 0), text="In May 2023, which race did Sam run?")
    found.rankings = {Retriever.VECTOR: [], Retriever.FULLTEXT: []}
    found.words = (
        QueryWord(word="May", stem="may", weight=3.0, held=False, name=True),
        QueryWord(word="2023", stem="2023", weight=3.0, held=False, name=False),
        QueryWord(word="race", stem="race", weight=2.0, held=True, name=False),
        QueryWord(word="Sam", stem="sam", weight=1.0, held=True, name=True),
    )

    whole = found.evidence()
    timed = found.evidence("In May 2023")

    assert whole is not None and timed is not None
    assert whole.missing_names() == ["May"]
    assert timed.missing_names() == [] and timed.unheld() == 0.0
    assert [w.word for w in timed.words] == ["race", "Sam"]
