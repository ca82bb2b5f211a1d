"""Pseudo-relevance feedback's pure parts: the relevance model and the expanded
query's weights."""

from __future__ import annotations

import pytest

from graphmem.domain.analysis import stem
from graphmem.services.retrieval.feedback import expanded_weights, relevance_model


def test_the_relevance_model_favours_words_of_the_better_documents():
    model = relevance_model(
        [(0.9, "coral bleaching and heat stress"), (0.1, "the deadline for the thesis")],
        terms=10,
    )
    assert sum(model.values()) == pytest.approx(1.0)
    assert model["coral"] > model["deadline"] > 0
    # stop words never come back; words are spelled as written, one per stem
    assert "the" not in model and "and" not in model
    assert set(model) >= {"bleaching", "stress", "thesis"}


def test_a_word_in_every_feedback_document_outweighs_one_in_a_single_document():
    model = relevance_model(
        [(0.5, "reef survey in Belize"), (0.5, "reef temperatures rose")], terms=10
    )
    assert model["reef"] > model["belize"]


def test_the_relevance_model_keeps_only_the_best_terms():
    model = relevance_model([(1.0, "alpha alpha alpha beta beta gamma")], terms=2)
    assert set(model) == {"alpha", "beta"}
    assert model["alpha"] == pytest.approx(3 / 5)


def test_no_weight_or_no_words_give_no_model():
    assert relevance_model([(0.0, "coral reef")], terms=5) == {}
    assert relevance_model([(1.0, "the and of")], terms=5) == {}
    assert relevance_model([], terms=5) == {}


def test_expanded_weights_split_the_query_between_its_own_words_and_the_new_ones():
    idf = {"coral": 2.0, "research": 1.0, "bleach": 3.0}
    weights = expanded_weights(
        idf, ["research"], {"bleaching": 0.75, "coral": 0.25}, original_weight=0.5
    )
    assert weights == pytest.approx(
        {"research": 1.0 * 0.5, stem("bleaching"): 3.0 * 0.375, "coral": 2.0 * 0.125}
    )


def test_a_query_word_the_model_also_holds_gets_both_shares_and_unknown_words_drop_out():
    idf = {"reef": 2.0, "ghost": 0.0}
    weights = expanded_weights(
        idf, ["reef", "ghost"], {"reef": 0.5, "ghost": 0.5}, original_weight=0.7
    )
    assert weights == pytest.approx({"reef": 2.0 * (0.7 + 0.15)})
