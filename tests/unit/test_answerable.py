"""The answerability gate's pure parts: names, the evidence's shares, the model, its note."""

from __future__ import annotations

import pytest

from graphmem.domain.retrieval.answerable import (
    Answerability,
    Evidence,
    QueryWord,
    features,
    unanswered_note,
)
from graphmem.domain.text import names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Which podcast did Leo recommend?", {"leo"}),
        ("When did Ana pick up her car? And Bob.", {"ana", "bob"}),
        ('He said: "Wow, great." Then Mia left', {"mia"}),
        ("what did we decide in March about CI", {"march", "ci"}),
        ("(Kiosk) deploys", set()),
        ("", set()),
    ],
)
def test_names_are_capitalised_words_that_do_not_start_a_sentence(
    text: str, expected: set[str]
) -> None:
    assert names(text) == expected


def word(text: str, weight: float, *, held: bool, name: bool = False) -> QueryWord:
    return QueryWord(word=text, stem=text, weight=weight, held=held, name=name)


KIOSK = Evidence(
    closest=0.31,
    words=(
        word("deploy", 1.0, held=True),
        word("conference", 4.0, held=False),
        word("kiosk", 4.0, held=False, name=True),
    ),
    covered=1.0 / 9.0,
)


def test_unheld_shares_weigh_words_by_their_idf() -> None:
    assert KIOSK.unheld() == pytest.approx(8.0 / 9.0)
    assert KIOSK.unheld(names=True) == pytest.approx(4.0 / 9.0)
    assert KIOSK.missing_names() == ["kiosk"]
    assert Evidence(closest=0.5, words=(), covered=0.0).unheld() == 0.0


def test_features_are_the_models_weights_by_name() -> None:
    gate = Answerability()
    assert set(features(KIOSK)) <= set(vars(gate))


def test_a_closer_memory_or_more_words_held_make_a_query_more_answerable() -> None:
    gate = Answerability()
    closer = Evidence(closest=0.6, words=KIOSK.words, covered=KIOSK.covered)
    held = Evidence(
        closest=0.31,
        words=tuple(
            QueryWord(w.word, w.stem, w.weight, held=True, name=w.name) for w in KIOSK.words
        ),
        covered=1.0,
    )
    assert gate.probability(closer) > gate.probability(KIOSK)
    assert gate.probability(held) > gate.probability(KIOSK)
    assert not gate.answers(gate.probability(KIOSK))
    assert gate.answers(gate.probability(held))


def test_a_cut_of_zero_answers_everything() -> None:
    gate = Answerability(cut=0.0)
    assert gate.answers(gate.probability(KIOSK))


def test_the_note_says_why_and_how_to_get_the_closest_anyway() -> None:
    gate = Answerability()
    note = unanswered_note(KIOSK, gate.probability(KIOSK), gate.cut)
    assert note.startswith("nothing relevant: no memory answers the query")
    assert "cosine is 0.31" in note
    assert "89% of the query's word weight is in no memory" in note
    assert "no memory names kiosk" in note
    assert "minRelevance 0" in note
