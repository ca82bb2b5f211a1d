"""knowledgeContext's scoring rules (seed 002), each against a number worked out by hand."""

from __future__ import annotations

import math

import pytest

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.context import (
    ContextRequest,
    access_frequency,
    context_weights,
    memory_words,
    parse_request,
    recency,
    score_memory,
    text_similarity,
    tool_definition,
)
from graphmem.domain.text import tokens as words

DAY = 86_400.0
NOW = 1_800_000_000.0


def memory(content: str, **fields) -> Memory:
    fields.setdefault("created_at", NOW)
    return Memory(
        id="m1", project_id="p", session_id="s", content=content, updated_at=NOW, **fields
    )


# -- text similarity: 70% of the hint's words, 30% of the memory's ----------


def test_text_overlap_weights_hint_coverage_70_and_memory_coverage_30():
    hint = words("deploy payments api")  # 3 words
    mem = words("payments api deploys through pipeline")  # 5 words; 2 shared
    assert text_similarity(hint, mem) == pytest.approx(0.7 * 2 / 3 + 0.3 * 2 / 5)  # 0.58667


def test_text_overlap_is_one_for_the_same_words_and_zero_for_none():
    assert (
        text_similarity(words("Never deploy on Fridays"), words("never DEPLOY, on fridays!")) == 1
    )
    assert text_similarity(words("rotate the keys"), words("billing retries kafka")) == 0


def test_text_overlap_counts_each_word_once_and_ignores_case_and_punctuation():
    hint = words("Kafka kafka KAFKA retries")  # {kafka, retries}
    mem = words("retries: kafka.")
    assert text_similarity(hint, mem) == 1.0


def test_text_overlap_covers_the_rationale_too():
    m = memory("Use PostgreSQL for invoices", rationale="transactions across tables")
    hint = words("invoices transactions")
    # memory words: use, postgresql, for, invoices, transactions, across, tables (7)
    assert len(memory_words(m)) == 7
    assert text_similarity(hint, memory_words(m)) == pytest.approx(0.7 * 2 / 2 + 0.3 * 2 / 7)


def test_text_overlap_of_a_memory_without_words_is_zero():
    assert text_similarity(words("deploy now"), words("!!! ---")) == 0.0


# -- recency: exp(-seconds / one week) -------------------------------------


@pytest.mark.parametrize(
    ("days", "expected"),
    [(0, 1.0), (1, math.exp(-1 / 7)), (7, math.exp(-1.0))],
    ids=["0 days", "1 day", "7 days"],
)
def test_recency_decays_with_a_one_week_time_constant(days, expected):
    assert recency(days * DAY) == pytest.approx(expected)


def test_recency_at_1_and_7_days_by_hand():
    assert recency(DAY) == pytest.approx(0.8668778997501817)
    assert recency(7 * DAY) == pytest.approx(0.36787944117144233)


def test_recency_never_exceeds_one_for_clock_skew():
    assert recency(-60.0) == 1.0


# -- access frequency: normalised by the scope's maximum -------------------


def test_access_frequency_is_normalised_by_the_maximum_in_scope():
    assert access_frequency(3, 12) == 0.25
    assert access_frequency(12, 12) == 1.0
    assert access_frequency(0, 0) == 0.0  # nothing accessed yet
    assert access_frequency(5, 4) == 1.0  # a stale maximum never lifts it above 1


# -- weights and rebalancing -------------------------------------------------


def test_default_weights_are_40_30_20_10():
    assert context_weights() == pytest.approx(
        {"text_similarity": 0.4, "recency": 0.3, "confidence": 0.2, "access_frequency": 0.1}
    )


def test_recency_weight_rebalances_the_others_proportionally():
    # 0.7 of weight left at the default becomes 0.5: each other weight * 5/7.
    weights = context_weights(0.5)
    assert weights == pytest.approx(
        {
            "text_similarity": 0.4 * 5 / 7,
            "recency": 0.5,
            "confidence": 0.2 * 5 / 7,
            "access_frequency": 0.1 * 5 / 7,
        }
    )
    assert sum(weights.values()) == pytest.approx(1.0)
    assert weights["text_similarity"] / weights["confidence"] == pytest.approx(2.0)


@pytest.mark.parametrize("recency_weight", [0.0, 0.1, 0.3, 0.9, 1.0])
def test_weights_always_sum_to_one(recency_weight):
    assert sum(context_weights(recency_weight).values()) == pytest.approx(1.0)


def test_recency_weight_zero_and_one_are_the_extremes():
    assert context_weights(0.0)["text_similarity"] == pytest.approx(4 / 7)
    only_recency = context_weights(1.0)
    assert only_recency["recency"] == 1.0
    assert only_recency["text_similarity"] == only_recency["confidence"] == 0.0


# -- the whole score ---------------------------------------------------------


def test_score_sums_the_weighted_components_by_hand():
    m = memory(
        "payments api deploys through pipeline",
        confidence=0.8,
        access_count=3,
        created_at=NOW - DAY,
    )
    total, components = score_memory(
        m,
        text_similarity(words("deploy payments api"), memory_words(m)),
        now=NOW,
        max_access_count=6,
        weights=context_weights(),
    )
    by_name = {c.name: c for c in components}
    assert by_name["text_similarity"].value == pytest.approx(0.5866667, abs=1e-6)
    assert by_name["recency"].value == pytest.approx(0.8668779, abs=1e-6)
    assert by_name["confidence"].value == 0.8
    assert by_name["access_frequency"].value == 0.5
    # 0.4 * 0.5866667 + 0.3 * 0.8668779 + 0.2 * 0.8 + 0.1 * 0.5
    assert total == pytest.approx(0.2346667 + 0.2600634 + 0.16 + 0.05, abs=1e-6)
    assert total == pytest.approx(sum(c.contribution for c in components))


def test_recency_uses_the_last_access_when_there_is_one():
    m = memory("x", created_at=NOW - 30 * DAY, last_accessed_at=NOW - DAY)
    _, components = score_memory(
        m,
        text_similarity(words("x"), memory_words(m)),
        now=NOW,
        max_access_count=0,
        weights=context_weights(),
    )
    assert {c.name: c.value for c in components}["recency"] == pytest.approx(math.exp(-1 / 7))


def test_a_higher_recency_weight_favours_the_fresh_memory():
    old_match = memory("deploy payments api", created_at=NOW - 14 * DAY, confidence=0.7)
    fresh_partial = memory("payments dashboard", created_at=NOW, confidence=0.7)
    hint = words("deploy payments api")

    def total(m: Memory, weight: float) -> float:
        return score_memory(
            m,
            text_similarity(hint, memory_words(m)),
            now=NOW,
            max_access_count=0,
            weights=context_weights(weight),
        )[0]

    assert total(old_match, 0.1) > total(fresh_partial, 0.1)
    assert total(old_match, 0.8) < total(fresh_partial, 0.8)


# -- validation ---------------------------------------------------------------


def test_defaults_follow_the_seed():
    request = ContextRequest(context_hint="deploy")
    assert request.min_confidence == 0.5
    assert request.max_results == 5
    assert request.recency_weight == 0.3
    assert request.include_superseded is False
    assert request.include_types is None


@pytest.mark.parametrize("length", [3, 1000])
def test_hint_length_limits_are_inclusive(length):
    assert len(parse_request({"context_hint": "x" * length}).context_hint) == length


@pytest.mark.parametrize("length", [2, 1001])
def test_hint_of_2_or_1001_characters_is_rejected(length):
    with pytest.raises(InvalidInputError) as error:
        parse_request({"context_hint": "x" * length})
    assert error.value.field == "context_hint"


def test_max_results_50_is_allowed_and_51_rejected():
    assert parse_request({"context_hint": "abc", "max_results": 50}).max_results == 50
    for bad in (51, 0):
        with pytest.raises(InvalidInputError) as error:
            parse_request({"context_hint": "abc", "max_results": bad})
        assert error.value.field == "max_results"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("min_confidence", 1.5),
        ("min_confidence", -0.1),
        ("recency_weight", 1.01),
        ("include_types", ["not_a_type"]),
        ("unknown", 1),
    ],
)
def test_out_of_range_arguments_are_rejected(field, value):
    with pytest.raises(InvalidInputError):
        parse_request({"context_hint": "abc", field: value})


# -- the LLM tool ---------------------------------------------------------------


def test_tool_schema_states_the_limits_that_are_enforced():
    tool = tool_definition()
    assert tool["name"] == "knowledge_context"
    params = tool["parameters"]
    assert params["required"] == ["contextHint"]
    assert params["additionalProperties"] is False
    props = params["properties"]
    assert set(props) == {
        "contextHint",
        "includeTypes",
        "minConfidence",
        "maxResults",
        "recencyWeight",
        "includeSuperseded",
        "includeArchived",
        "sessionId",
        "minRelevance",
        "occurredAfter",
        "occurredBefore",
        "asOf",
    }
    assert (props["contextHint"]["minLength"], props["contextHint"]["maxLength"]) == (3, 1000)
    assert (props["maxResults"]["maximum"], props["maxResults"]["default"]) == (50, 5)
    assert props["minConfidence"]["default"] == 0.5
    assert props["recencyWeight"]["default"] == 0.3
    assert (props["minRelevance"]["default"], props["minRelevance"]["maximum"]) == (0.2, 1.0)
    assert "$ref" not in str(params) and "$defs" not in str(params)


def test_tool_arguments_validate_like_the_python_ones_and_answer_in_camel_case():
    request = parse_request({"contextHint": "deploy api", "maxResults": 7, "recencyWeight": 0.5})
    assert (request.context_hint, request.max_results, request.recency_weight) == (
        "deploy api",
        7,
        0.5,
    )
    with pytest.raises(InvalidInputError) as error:
        parse_request({"contextHint": "ab"})
    assert error.value.field == "contextHint"
    assert error.value.message.startswith("contextHint:")
    with pytest.raises(InvalidInputError) as error:
        parse_request({"contextHint": "abc", "maxResults": 51})
    assert error.value.field == "maxResults"
