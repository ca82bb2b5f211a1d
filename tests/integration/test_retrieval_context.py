"""knowledgeContext against a real FalkorDB and the real embedding model.

Scores are checked against numbers worked out by hand from seed 002's
formula; the clock is a ManualClock, so recency is exact.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.retrieval.context import WORD_OVERLAP
from graphmem.services.telemetry import Event
from graphmem.store.falkordb import FalkorStore

DAY = 86_400.0


def components(item) -> dict[str, float]:
    return {c.name: c.value for c in item.components}


@pytest.fixture
def overlap(egm: GraphMem) -> GraphMem:
    """knowledgeContext with seed 002's literal word-overlap text similarity."""
    egm.retrieval.config = dataclasses.replace(
        egm.retrieval.config, context_text_scorer=WORD_OVERLAP
    )
    return egm


def test_scores_and_order_follow_seed_002_by_hand(overlap: GraphMem, clock: ManualClock):
    egm = overlap
    a = egm.remember({"content": "deploy payments api through pipeline", "confidence": 0.9})
    b = egm.remember({"content": "payments api rate limits", "confidence": 0.6})
    egm.record_access(b.id)
    egm.record_access(b.id)
    clock.advance(DAY)

    result = egm.knowledge_context("deploy payments api", record_access=False)

    assert [item.memory.id for item in result.items] == [a.id, b.id]
    assert result.max_access_count == 2
    day = math.exp(-1 / 7)
    first, second = result.items
    # a: 3 of 3 hint words, 3 of 5 memory words; never accessed
    assert components(first) == pytest.approx(
        {"text_similarity": 0.88, "recency": day, "confidence": 0.9, "access_frequency": 0.0}
    )
    assert first.score == pytest.approx(0.4 * 0.88 + 0.3 * day + 0.2 * 0.9)
    # b: 2 of 3 hint words, 2 of 4 memory words; accessed twice, the most in scope
    assert components(second)["text_similarity"] == pytest.approx(0.7 * 2 / 3 + 0.3 * 2 / 4)
    assert components(second)["access_frequency"] == 1.0
    assert second.score == pytest.approx(
        0.4 * (0.7 * 2 / 3 + 0.15) + 0.3 * day + 0.2 * 0.6 + 0.1 * 1.0
    )


@pytest.mark.parametrize(("days", "expected"), [(0, 1.0), (1, math.exp(-1 / 7)), (7, math.exp(-1))])
def test_recency_decays_at_0_1_and_7_days(
    egm: GraphMem, clock: ManualClock, days: int, expected: float
):
    egm.remember({"content": "rotate the signing keys monthly"})
    clock.advance(days * DAY)
    (item,) = egm.knowledge_context("rotate signing keys", record_access=False).items
    assert components(item)["recency"] == pytest.approx(expected)


def test_recency_weight_rebalances_the_other_weights(overlap: GraphMem, clock: ManualClock):
    egm = overlap
    egm.remember({"content": "rotate the signing keys monthly", "confidence": 0.8})
    clock.advance(DAY)
    result = egm.knowledge_context("rotate signing keys", recency_weight=0.5, record_access=False)
    assert result.weights == pytest.approx(
        {
            "text_similarity": 0.4 * 5 / 7,
            "recency": 0.5,
            "confidence": 0.2 * 5 / 7,
            "access_frequency": 0.1 * 5 / 7,
        }
    )
    (item,) = result.items
    # hint: rotate, signing, keys (3); memory: rotate, the, signing, keys, monthly (5)
    text = 0.7 + 0.3 * 3 / 5
    assert item.score == pytest.approx(
        0.4 * 5 / 7 * text + 0.5 * math.exp(-1 / 7) + 0.2 * 5 / 7 * 0.8
    )


def test_min_confidence_leaves_out_less_certain_memories(egm: GraphMem):
    sure = egm.remember({"content": "the cache TTL is 30 seconds", "confidence": 0.9})
    # Written without dedup: judged against the first, it would wait for review
    # as a possible contradiction, and this is about confidence alone.
    (unsure,) = egm.remember_many(
        [{"content": "the cache TTL might be 60 seconds", "confidence": 0.4}], dedup=False
    )
    default = egm.knowledge_context("cache TTL seconds", record_access=False)
    assert [i.memory.id for i in default.items] == [sure.id]
    lower = egm.knowledge_context("cache TTL seconds", min_confidence=0.3, record_access=False)
    assert {i.memory.id for i in lower.items} == {sure.id, unsure}


def test_include_types_keeps_only_those_types(egm: GraphMem):
    rule = egm.remember(
        {"content": "never deploy the billing service on Friday", "memory_type": "rule"}
    )
    egm.remember(
        {"content": "deploy the billing service with blue green", "memory_type": "decision"}
    )
    result = egm.knowledge_context(
        "deploy billing service", include_types=["rule"], record_access=False
    )
    assert [i.memory.id for i in result.items] == [rule.id]


def test_superseded_memories_are_excluded_unless_asked_for(egm: GraphMem):
    old = egm.remember({"content": "invoices are stored in PostgreSQL"})
    new = egm.remember({"content": "invoices are stored in FalkorDB from now on"})
    egm.supersede(old.id, new.id)
    default = egm.knowledge_context("where are invoices stored", record_access=False)
    assert [i.memory.id for i in default.items] == [new.id]
    both = egm.knowledge_context(
        "where are invoices stored", include_superseded=True, record_access=False
    )
    assert {i.memory.id for i in both.items} == {old.id, new.id}


def test_candidates_and_archived_memories_are_never_injected(egm: GraphMem):
    active = egm.remember({"content": "the deploy script lives in tools/deploy.sh"})
    candidate = egm.remember(
        {"content": "the deploy script may live in scripts/deploy.sh", "source": "auto_extracted"}
    )
    assert candidate.status.value == "candidate"
    absorbed = egm.remember({"content": "deploy script path is tools/deploy.sh, maybe"})
    egm.merge_memories(active.id, absorbed.id)  # archives the absorbed one
    result = egm.knowledge_context("deploy script", record_access=False)
    assert [i.memory.id for i in result.items] == [active.id]


def test_max_results_caps_the_answer_and_50_is_the_limit(egm: GraphMem):
    egm.remember_many([{"content": f"service {n} exposes metrics on /metrics"} for n in range(8)])
    assert len(egm.knowledge_context("service metrics", max_results=3).items) == 3
    assert len(egm.knowledge_context("service metrics", max_results=50).items) == 8
    with pytest.raises(InvalidInputError) as error:
        egm.knowledge_context("service metrics", max_results=51)
    assert error.value.field == "max_results"


@pytest.mark.parametrize("hint", ["ab", "x" * 1001])
def test_hints_of_2_and_1001_characters_are_rejected(egm: GraphMem, hint: str):
    with pytest.raises(InvalidInputError) as error:
        egm.knowledge_context(hint)
    assert error.value.field == "context_hint"


def test_each_call_counts_a_retrieval_not_a_use_on_what_it_returns(
    egm: GraphMem, clock: ManualClock
):
    # The scope's maximum access count is read fresh on every call.
    egm.retrieval.config = dataclasses.replace(egm.retrieval.config, max_access_cache_seconds=0)
    shown = egm.remember({"content": "the staging database resets nightly"})
    hidden = egm.remember({"content": "lunch is at noon"})
    clock.advance(3600)
    first = egm.knowledge_context("staging database")
    after = egm.get(shown.id)
    assert (after.retrieval_count, after.last_retrieved_at) == (1, pytest.approx(clock.now()))
    # Retrieval is not use: accesses, recency and importance stay as they were.
    assert (after.access_count, after.last_accessed_at) == (0, None)
    assert after.importance == shown.importance
    assert egm.get(hidden.id).retrieval_count == 0
    for _ in range(3):
        again = egm.knowledge_context("staging database")
    assert again.items[0].score == pytest.approx(first.items[0].score)  # no feedback loop
    assert components(again.items[0])["access_frequency"] == 0.0
    assert egm.get(shown.id).retrieval_count == 4
    egm.knowledge_context("staging database", record_access=False)
    assert egm.get(shown.id).retrieval_count == 4
    egm.record_access(shown.id)  # an agent's explicit use is what frequency counts
    used = egm.knowledge_context("staging database", record_access=False)
    assert components(used.items[0])["access_frequency"] == 1.0


def test_emits_a_telemetry_event_with_status_and_duration(egm: GraphMem):
    events: list[Event] = []
    egm.telemetry.subscribe(events.append)
    egm.remember({"content": "the staging database resets nightly"})
    egm.knowledge_context("staging database")
    with pytest.raises(InvalidInputError):
        egm.knowledge_context("ab")
    context_events = [e for e in events if e.name == "knowledge.context"]
    assert [e.fields["status"] for e in context_events] == ["ok", "invalid"]
    assert context_events[0].fields["duration_ms"] > 0
    assert context_events[0].fields["results"] == 1


def test_session_scope_limits_results_and_the_frequency_maximum(egm: GraphMem):
    mine = egm.remember({"content": "feature flags live in LaunchDarkly", "session_id": "s1"})
    other = egm.remember({"content": "feature flags are cleaned up monthly", "session_id": "s2"})
    for _ in range(4):
        egm.record_access(other.id)
    egm.record_access(mine.id)
    result = egm.knowledge_context("feature flags", session_id="s1", record_access=False)
    assert [i.memory.id for i in result.items] == [mine.id]
    assert result.max_access_count == 1
    assert components(result.items[0])["access_frequency"] == 1.0


def test_project_isolation(egm: GraphMem):
    egm.remember({"content": "the VPN certificate expires in March"}, project_id="other")
    mine = egm.remember({"content": "the VPN uses WireGuard"})
    # minRelevance 0: the closest of this project, however little of the hint it
    # answers (the certificate is only the other project's).
    result = egm.knowledge_context(
        "VPN certificate expires March", min_relevance=0.0, record_access=False
    )
    assert [i.memory.id for i in result.items] == [mine.id]
    assert all(i.memory.project_id == "default" for i in result.items)


def test_paraphrases_become_candidates_through_the_vector_index(egm: GraphMem):
    target = egm.remember({"content": "Invoices are generated at midnight by a cron job"})
    result = egm.knowledge_context("when do bills get produced", record_access=False)
    assert [i.memory.id for i in result.items] == [target.id]
    # Found by meaning (feedback, which adds the words of the best hit, finds
    # it again by its own words), never by the hint's words.
    assert [h.retriever.value for h in result.items[0].retrievers] == ["vector", "feedback"]
    # The hybrid relevance sees the paraphrase; word overlap (no shared word) does not.
    assert components(result.items[0])["text_similarity"] > 0.3
    egm.retrieval.config = dataclasses.replace(
        egm.retrieval.config, context_text_scorer=WORD_OVERLAP
    )
    again = egm.knowledge_context(
        "when do bills get produced", min_relevance=0.0, record_access=False
    )
    assert components(again.items[0])["text_similarity"] == 0.0


def test_text_similarity_is_the_relevance_hybrid_search_gives(egm: GraphMem):
    target = egm.remember({"content": "We lock ledger rows with SELECT FOR UPDATE"})
    egm.remember_many(
        [
            {"content": "Ledger exports run nightly"},
            {"content": "Rows in the audit table are never deleted"},
            {"content": "Lock files are committed with every dependency change"},
        ]
    )
    result = egm.knowledge_context("why do we lock ledger rows?", record_access=False)
    assert result.items[0].memory.id == target.id
    searched = egm.search("why do we lock ledger rows?", limit=4)
    relevance = {
        hit.memory.id: {c.name: c.value for c in hit.explanation.components}["relevance"]
        for hit in searched.hits
    }
    for item in result.items:
        assert components(item)["text_similarity"] == pytest.approx(relevance[item.memory.id])


def test_tool_call_arguments_work_and_are_validated_the_same_way(egm: GraphMem):
    egm.remember({"content": "the staging database resets nightly", "confidence": 0.9})
    result = egm.knowledge_context({"contextHint": "staging database", "maxResults": 1})
    assert len(result.items) == 1
    with pytest.raises(InvalidInputError) as error:
        egm.knowledge_context({"contextHint": "staging database", "maxResults": 51})
    assert error.value.field == "maxResults"


def test_without_embeddings_full_text_still_answers_and_says_so(
    store: FalkorStore, clock: ManualClock
):
    gm = GraphMem(store, clock=clock)
    target = gm.remember({"content": "the staging database resets nightly"})
    result = gm.knowledge_context("staging database", record_access=False)
    assert [i.memory.id for i in result.items] == [target.id]
    assert any("GRAPHMEM_EMBEDDER=none" in note for note in result.notes)


def test_a_rule_that_constrains_a_hit_comes_with_it_and_says_how(egm: GraphMem):
    task = egm.remember({"content": "deploy the billing service with the release script"})
    rule = egm.remember({"content": "freeze: nothing ships while the auditors are in"})
    egm.relate(rule.id, task.id, "CONSTRAINS")
    found = egm.knowledge_context("deploy the billing service", record_access=False)
    items = {item.memory.id: item for item in found.items}
    assert task.id in items and items[task.id].path is None
    reached = items[rule.id]
    assert reached.retrievers == [] or all(h.score < 0.2 for h in reached.retrievers)
    assert reached.path is not None and reached.path.seed_id == task.id
    assert [s.type.value for s in reached.path.steps] == ["CONSTRAINS"]
    # Its text similarity is the hit's relevance times the factor of the relation.
    text = {i.memory.id: components(i)["text_similarity"] for i in found.items}
    assert text[rule.id] == pytest.approx(text[task.id] * reached.path.factor)
    egm.retrieval.config = dataclasses.replace(egm.retrieval.config, context_depth=0)
    alone = egm.knowledge_context("deploy the billing service", record_access=False)
    assert rule.id not in {i.memory.id for i in alone.items}


def test_a_superseded_hit_is_replaced_by_its_successor(egm: GraphMem):
    old = egm.remember({"content": "the staging database password rotates monthly"})
    new = egm.remember({"content": "credentials now come from the vault, no rotation"})
    egm.supersede(old.id, new.id)
    found = egm.knowledge_context("staging database password", record_access=False)
    assert new.id in [i.memory.id for i in found.items]
    assert old.id not in [i.memory.id for i in found.items]
