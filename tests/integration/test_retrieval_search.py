"""Hybrid search, traversal and neighbourhoods against a real FalkorDB and the
real embedding model."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from graphmem.api import GraphMem
from graphmem.domain.analysis import analyse
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.services.retrieval.feedback import LexicalFeedback
from graphmem.services.retrieval.recent import RecentPart
from graphmem.services.telemetry import Event
from graphmem.store.falkordb import FalkorStore
from tests.integration.statements import statements_read

PARAPHRASE_TARGET = "The invoice generator crashes when the customer has no billing address"
PARAPHRASE_QUERY = "program producing statements breaks if a client lacks a postal location"
TOKEN_TARGET = "Facilities reissued the parking badge after the office move; the new one is QZX7731"
TOKEN_QUERY = "QZX7731"
DISTRACTORS = [
    "Error QZX7713 means the upload exceeded the size limit",
    "Error QXZ7731 means the upload token expired",
    "Error ZQX1377 means the checksum did not match",
    "Error QZX1773 means the archive is corrupt",
    "The rate limiter rejects bursts above 100 requests per second",
    "Session tokens expire after 15 minutes of inactivity",
    "Database migrations run before every deploy",
    "Nightly exports are written to the reports bucket",
]
MODES = ["HYBRID", "VECTOR", "FULLTEXT", "GRAPH"]
QUEUE_QUESTION = "why does the notification queue time out on redis streams"


@contextmanager
def configured(egm: GraphMem, **changes: object) -> Iterator[None]:
    """Retrieval with ``changes`` to its configuration, for the block only."""
    kept = egm.retrieval.config
    egm.retrieval.config = dataclasses.replace(kept, **changes)
    try:
        yield
    finally:
        egm.retrieval.config = kept


@pytest.fixture
def corpus(egm: GraphMem) -> dict[str, str]:
    """Content -> id of a small store with a paraphrase target and a rare-token target."""
    contents = [PARAPHRASE_TARGET, TOKEN_TARGET, *DISTRACTORS]
    return dict(zip(contents, egm.remember_many([{"content": c} for c in contents]), strict=True))


def ids(result) -> list[str]:
    return [hit.memory.id for hit in result.hits]


def test_vector_search_finds_a_paraphrase_that_shares_no_words(egm, corpus):
    vector = egm.search(PARAPHRASE_QUERY, mode="VECTOR", limit=3)
    assert ids(vector)[0] == corpus[PARAPHRASE_TARGET]
    assert egm.search(PARAPHRASE_QUERY, mode="FULLTEXT").hits == []


def test_full_text_finds_an_exact_rare_token_that_the_vector_misses(egm, corpus):
    fulltext = egm.search(TOKEN_QUERY, mode="FULLTEXT", limit=3)
    assert ids(fulltext) == [corpus[TOKEN_TARGET]]
    vector = egm.search(TOKEN_QUERY, mode="VECTOR", limit=3)
    assert corpus[TOKEN_TARGET] not in ids(vector)


def test_hybrid_returns_what_either_retriever_alone_finds(egm, corpus):
    paraphrase = egm.search(PARAPHRASE_QUERY, limit=3)
    token = egm.search(TOKEN_QUERY, limit=3)
    assert ids(paraphrase)[0] == corpus[PARAPHRASE_TARGET]
    assert ids(token)[0] == corpus[TOKEN_TARGET]
    found_by = {h.retriever.value: h.rank for h in token.hits[0].explanation.retrievers}
    assert found_by["fulltext"] == 1
    # a one-word query is short enough to be expanded by feedback
    assert token.retrievers == ["vector", "fulltext", "feedback"]


def test_every_hit_explains_its_score_and_its_retrievers(egm, corpus):
    result = egm.search(TOKEN_QUERY, limit=3)
    for hit in result.hits:
        parts = hit.explanation.components
        assert {c.name for c in parts} == {"relevance", "importance", "recency", "confidence"}
        assert sum(c.contribution for c in parts) == pytest.approx(hit.score)
        assert sum(c.weight for c in parts) == pytest.approx(1.0)
        assert hit.explanation.retrievers, "a direct hit names the retrievers that found it"
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_traversal_pulls_in_a_constraint_one_hop_from_a_hit_and_shows_the_path(egm: GraphMem):
    decision = egm.remember(
        {"content": "Ship the mobile app update through the beta channel first"}
    )
    rule = egm.remember(
        {"content": "Invoices need a VAT number from the customer", "memory_type": "rule"}
    )
    egm.remember_many([{"content": c} for c in DISTRACTORS])
    egm.relate(rule.id, decision.id, "CONSTRAINS", rationale="company policy")
    query = "roll out mobile app update beta channel"

    without = egm.search(query, depth=0, limit=2)
    assert rule.id not in ids(without)

    result = egm.search(query, depth=1, limit=2)
    assert ids(result) == [decision.id, rule.id]
    path = result.hits[1].explanation.path
    assert path is not None and path.seed_id == decision.id
    assert [(s.type.value, s.from_id, s.to_id) for s in path.steps] == [
        ("CONSTRAINS", rule.id, decision.id)
    ]
    assert path.factor == pytest.approx(0.9)

    def relevance(hit):
        return {c.name: c.value for c in hit.explanation.components}["relevance"]

    # The rule inherits the hit's relevance times the factor.
    assert relevance(result.hits[1]) == pytest.approx(0.9 * relevance(result.hits[0]))


def test_traversal_follows_only_the_relation_types_asked_for(egm: GraphMem):
    decision = egm.remember(
        {"content": "Ship the mobile app update through the beta channel first"}
    )
    related = egm.remember({"content": "Crash reports arrive in Sentry within minutes"})
    egm.relate(decision.id, related.id, "RELATED_TO")
    query = "mobile app update beta channel"
    assert related.id in ids(egm.search(query, mode="HYBRID", limit=3))
    only_constraints = egm.search(query, limit=3, relation_types=["CONSTRAINS"])
    assert all(hit.explanation.path is None for hit in only_constraints.hits)
    with pytest.raises(InvalidInputError):
        egm.search(query, relation_types=["SUPERSEDES"])


def test_a_superseded_hit_is_replaced_by_its_successor_with_the_chain(egm: GraphMem):
    old = egm.remember({"content": "Invoices are stored in PostgreSQL tables"})
    middle = egm.remember({"content": "Billing documents moved to a document store"})
    new = egm.remember({"content": "Billing documents now live in FalkorDB"})
    egm.supersede(old.id, middle.id)
    egm.supersede(middle.id, new.id)
    result = egm.search("where are invoices stored in PostgreSQL", mode="FULLTEXT", limit=5)
    assert old.id not in ids(result) and middle.id not in ids(result)
    (hit,) = [h for h in result.hits if h.memory.id == new.id]
    assert hit.explanation.replaces == [old.id, middle.id]
    kept = egm.search(
        "where are invoices stored in PostgreSQL",
        mode="FULLTEXT",
        filters={"include_superseded": True},
    )
    assert ids(kept)[0] == old.id


def test_candidates_are_shown_by_search_unless_excluded(egm: GraphMem):
    candidate = egm.remember(
        {"content": "the deploy script may live in scripts/deploy.sh", "source": "auto_extracted"}
    )
    assert candidate.id in ids(egm.search("deploy script"))
    excluded = egm.search("deploy script", filters={"include_candidates": False})
    assert candidate.id not in ids(excluded)


def test_archived_memories_appear_only_with_include_archived(egm: GraphMem):
    keeper = egm.remember({"content": "the deploy script lives in tools/deploy.sh"})
    archived = egm.remember({"content": "deploy script path: tools/deploy.sh (old note)"})
    egm.merge_memories(keeper.id, archived.id)
    for mode in MODES:
        assert archived.id not in ids(egm.search("deploy script", mode=mode))
        shown = egm.search("deploy script", mode=mode, filters={"include_archived": True})
        assert archived.id in ids(shown), mode


def test_filters_narrow_the_results(egm: GraphMem, clock: ManualClock):
    rule = egm.remember(
        {"content": "Never run migrations without a backup", "memory_type": "rule", "tags": ["db"]}
    )
    clock.advance(60)
    later = egm.remember({"content": "Run migrations with alembic upgrade head", "confidence": 0.4})
    query = "run database migrations"
    assert set(ids(egm.search(query))) == {rule.id, later.id}
    assert ids(egm.search(query, filters={"types": ["rule"]})) == [rule.id]
    assert ids(egm.search(query, filters={"tags": ["db"]})) == [rule.id]
    assert ids(egm.search(query, filters={"min_confidence": 0.5})) == [rule.id]
    assert ids(egm.search(query, filters={"created_after": clock.now()})) == [later.id]
    assert ids(egm.search(query, filters={"created_before": clock.now()})) == [rule.id]


@pytest.mark.parametrize("mode", MODES)
def test_project_isolation_holds_in_every_mode(egm: GraphMem, mode: str):
    mine = egm.remember({"content": TOKEN_TARGET})
    theirs = egm.remember_many(
        [{"content": TOKEN_TARGET}, {"content": PARAPHRASE_TARGET}], project_id="other"
    )
    egm.relate(theirs[0], theirs[1], "RELATED_TO", project_id="other")
    for query in (TOKEN_QUERY, PARAPHRASE_QUERY):
        result = egm.search(query, mode=mode, limit=10)
        assert set(ids(result)) <= {mine.id}
        assert all(hit.memory.project_id == "default" for hit in result.hits)
    other = egm.search(TOKEN_QUERY, mode=mode, project_id="other")
    assert set(ids(other)) <= set(theirs) and ids(other)


def test_a_small_project_beside_a_big_one_still_gets_its_nearest_memory(egm: GraphMem):
    # The vector index is shared by all projects: the 60 nearest neighbours all
    # belong to the other project, so the search must look further.
    egm.remember_many(
        [
            {"content": f"Invoice batch {n} failed because the billing address was empty"}
            for n in range(60)
        ],
        project_id="big",
    )
    mine = egm.remember({"content": "Sandwich orders are due by ten"})
    result = egm.search(
        "invoice failed billing address empty", mode="VECTOR", limit=1, min_relevance=0.0
    )
    assert ids(result) == [mine.id]


@pytest.mark.parametrize("mode", MODES)
def test_an_unrelated_query_finds_nothing_relevant_and_says_so(egm, corpus, mode):
    result = egm.search("sourdough starter feeding ratio", mode=mode)
    assert result.hits == []
    assert any(note.startswith("nothing relevant") for note in result.notes)
    everything = egm.search("sourdough starter feeding ratio", mode=mode, min_relevance=0.0)
    if mode != "FULLTEXT":  # no shared word: full text has no candidate at all
        assert everything.hits


def test_relevance_is_on_one_scale_in_every_mode(egm, corpus):
    def relevance(result):
        return {c.name: c.value for c in result.hits[0].explanation.components}["relevance"]

    vector = egm.search(PARAPHRASE_QUERY, mode="VECTOR", limit=1)
    # Feedback would add the hit's own words to the query (feedback.py).
    with configured(egm, feedback=LexicalFeedback(docs=0)):
        hybrid = egm.search(PARAPHRASE_QUERY, mode="HYBRID", limit=1)
    # No shared word: HYBRID's relevance is the cosine weighted by the fusion's share.
    assert relevance(hybrid) == pytest.approx(0.8 * relevance(vector))
    token = egm.search(TOKEN_QUERY, mode="FULLTEXT", limit=1)
    # The one query word, held once in a memory a little longer than the mean.
    assert 0.9 < relevance(token) <= 1.0
    with pytest.raises(InvalidInputError) as error:
        egm.search(TOKEN_QUERY, min_relevance=1.5)
    assert error.value.field == "min_relevance"


@pytest.mark.parametrize(
    "hostile",
    [
        "-zzz",
        "*",
        "@content:zzz",
        '"(((',
        "%zzz%",
        "zzz | *",
        "~zzz",
        "{zzz}",
        "\\",
        "$x =>",
        "AND OR NOT",
    ],
)
def test_full_text_syntax_in_user_text_neither_errors_nor_widens(egm, corpus, hostile: str):
    result = egm.search(hostile, mode="FULLTEXT")
    assert result.hits == []


def test_full_text_queries_are_tokens_so_punctuation_still_matches_words(egm, corpus):
    result = egm.search("@content:QZX7731*", mode="FULLTEXT")
    assert ids(result) == [corpus[TOKEN_TARGET]]


def test_graph_mode_fills_results_from_the_best_hits_relations(egm: GraphMem):
    decision = egm.remember(
        {"content": "Ship the mobile app update through the beta channel first"}
    )
    enabler = egm.remember({"content": "Feature flags are managed in LaunchDarkly"})
    egm.relate(enabler.id, decision.id, "ENABLES")
    result = egm.search("mobile app update beta channel", mode="GRAPH", limit=5)
    assert ids(result)[:2] == [decision.id, enabler.id]
    assert result.hits[1].explanation.path.factor == pytest.approx(0.6)


def test_search_emits_telemetry(egm, corpus):
    events: list[Event] = []
    egm.telemetry.subscribe(events.append)
    egm.search(TOKEN_QUERY, mode="FULLTEXT")
    (event,) = [e for e in events if e.name == "retrieval.search"]
    assert event.fields["status"] == "ok" and event.fields["mode"] == "FULLTEXT"
    assert event.fields["duration_ms"] > 0


@pytest.mark.parametrize(
    ("argument", "value"), [("limit", 51), ("depth", 4), ("query", ""), ("mode", "FUZZY")]
)
def test_invalid_search_arguments_are_rejected(egm: GraphMem, argument: str, value):
    arguments = {"query": "deploy", argument: value}
    with pytest.raises(InvalidInputError) as error:
        egm.search(**arguments)
    assert error.value.field == argument


def test_without_embeddings_search_uses_full_text_and_says_so(
    store: FalkorStore, clock: ManualClock
):
    gm = GraphMem(store, clock=clock)
    target = gm.remember({"content": TOKEN_TARGET})
    result = gm.search(TOKEN_QUERY)
    assert ids(result) == [target.id]
    assert result.retrievers == ["fulltext"]
    assert any("GRAPHMEM_EMBEDDER=none" in note for note in result.notes)
    with pytest.raises(InvalidInputError) as error:
        gm.search(TOKEN_QUERY, mode="VECTOR")
    assert error.value.field == "mode"


def test_neighborhood_returns_nodes_and_typed_edges(egm: GraphMem):
    a, b, c, d, far = egm.remember_many(
        [{"content": f"memory {name}"} for name in ("a", "b", "c", "d", "far")]
    )
    egm.relate(a, b, "CONSTRAINS")
    egm.relate(c, a, "ENABLES")
    egm.supersede(d, a)  # a SUPERSEDES d
    egm.relate(b, far, "RELATED_TO")

    one = egm.neighborhood(a)
    assert one.nodes[0].id == a
    assert {n.id for n in one.nodes} == {a, b, c, d}
    assert {(e.type.value, e.from_id, e.to_id) for e in one.edges} == {
        ("CONSTRAINS", a, b),
        ("ENABLES", c, a),
        ("SUPERSEDES", a, d),
    }
    two = egm.neighborhood(a, depth=2)
    assert far in {n.id for n in two.nodes}
    assert ("RELATED_TO", b, far) in {(e.type.value, e.from_id, e.to_id) for e in two.edges}
    only = egm.neighborhood(a, relation_types=["ENABLES"])
    assert {n.id for n in only.nodes} == {a, c}
    with pytest.raises(NotFoundError):
        egm.neighborhood(a, project_id="other")
    with pytest.raises(InvalidInputError):
        egm.neighborhood(a, depth=4)


def test_score_fusion_mixes_cosine_and_saturated_lexical_share_on_one_scale():
    fusion = ScoreFusion(vector_weight=0.8, lexical_half=0.1)
    assert fusion.lexical(1.0) == pytest.approx(1.0)
    assert fusion.lexical(0.1) == pytest.approx(0.55)
    assert fusion.lexical(0.0) == 0.0
    fused = fusion.fuse({"a": 0.6, "b": 0.2}, {"a": 0.1, "c": 1.0})
    assert fused["a"] == pytest.approx(0.8 * 0.6 + 0.2 * 0.55)
    assert fused["b"] == pytest.approx(0.8 * 0.2)
    assert fused["c"] == pytest.approx(0.2)
    # One retriever: its own value, so VECTOR and FULLTEXT relevances mean what HYBRID's do.
    assert fusion.fuse({"x": 0.4}, None) == {"x": pytest.approx(0.4)}
    assert fusion.fuse(None, {"x": 0.1}) == {"x": pytest.approx(0.55)}
    # A memory a retriever left out scores that retriever's floor.
    floored = fusion.fuse({"a": 0.6}, {"b": 1.0}, vector_floor=0.3)
    assert floored["b"] == pytest.approx(0.8 * 0.3 + 0.2)
    assert fusion.fuse({"n": -0.2}, None)["n"] == 0.0


FEEDBACK_QUESTION = "what is my doctoral thesis about"
FEEDBACK_TOP = "My doctoral thesis studies coral reefs in Belize"
FEEDBACK_ANSWER = "Coral bleaching: I measure heat stress on Belize reefs every summer"


def retrievers_of(result, memory_id: str) -> dict[str, int]:
    (hit,) = [h for h in result.hits if h.memory.id == memory_id]
    return {h.retriever.value: h.rank for h in hit.explanation.retrievers}


def test_feedback_finds_by_the_words_of_the_best_hits_what_shares_none_with_the_query(
    egm: GraphMem,
):
    top, answer = egm.remember_many([{"content": FEEDBACK_TOP}, {"content": FEEDBACK_ANSWER}])
    egm.remember_many([{"content": c} for c in DISTRACTORS])
    result = egm.search(FEEDBACK_QUESTION, limit=5, min_relevance=0.0)
    assert result.retrievers == ["vector", "fulltext", "feedback"]
    # The answer holds no word of the question and little of its meaning: the
    # expanded query (coral, reefs, Belize from the best hit) ranks it next.
    assert ids(result)[:2] == [top, answer]
    found_by = retrievers_of(result, answer)
    assert "fulltext" not in found_by
    assert found_by["feedback"] >= 1
    assert "feedback" in retrievers_of(result, top)

    context = egm.knowledge_context(
        FEEDBACK_QUESTION, max_results=5, min_relevance=0.0, record_access=False
    )
    (item,) = [i for i in context.items if i.memory.id == answer]
    assert "feedback" in {h.retriever.value for h in item.retrievers}


def test_feedback_can_be_turned_off_and_leaves_long_queries_and_single_modes_alone(
    egm: GraphMem,
):
    _, answer = egm.remember_many([{"content": FEEDBACK_TOP}, {"content": FEEDBACK_ANSWER}])
    egm.remember_many([{"content": c} for c in DISTRACTORS])
    with configured(egm, feedback=LexicalFeedback(docs=0)):
        off = egm.search(FEEDBACK_QUESTION, limit=5, min_relevance=0.0)
    assert off.retrievers == ["vector", "fulltext"]
    assert all(
        h.retriever.value != "feedback" for hit in off.hits for h in hit.explanation.retrievers
    )
    # Without feedback the answer ranks below memories about something else.
    assert ids(off).index(answer) > 1

    long_query = (
        "tell me again what my doctoral thesis was about, the one from the lab "
        "where we spent those long evenings writing chapters and drinking coffee"
    )
    assert egm.search(long_query, limit=5).retrievers == ["vector", "fulltext"]
    # Nothing relevant found first: no words are taken from irrelevant memories.
    off_topic = egm.search("banana bread recipe with walnuts", limit=5)
    assert off_topic.hits == []
    assert off_topic.retrievers == ["vector", "fulltext"]
    for mode in ("VECTOR", "FULLTEXT"):
        assert "feedback" not in egm.search(FEEDBACK_QUESTION, mode=mode).retrievers


def test_full_text_still_answers_when_no_memory_holds_every_common_word(egm: GraphMem):
    # Every word is "common" here (two memories of five: a share of 0.4), so in a
    # project past the whole-project ranking the index query requires them all
    # together, and no memory holds all five: the index is asked for four next.
    egm.retrieval.config = dataclasses.replace(
        egm.retrieval.config, exact_fulltext_below=0, common_term_share=0.4
    )
    egm.retrieval.terms.clear()
    notify = egm.remember_many(
        [
            {"content": "The notification queue runs on Redis streams"},
            {"content": "The notification queue retries each message three times"},
            {"content": "Redis streams keep seven days of events"},
            {"content": "The export job times out after ten minutes"},
            {"content": "The export job writes to the reports bucket"},
        ]
    )
    with statements_read(egm) as statements:
        result = egm.search(QUEUE_QUESTION, mode="FULLTEXT")
    # The one memory holding four of the five words is the answer, and the only
    # match: those holding three or fewer are not asked for.
    assert ids(result) == [notify[0]]
    # The relaxed query came with the first, asked only because it matched nothing.
    assert statements.count("fulltext_candidates") == 1
    # Each hit carries every field, read for the best of full text's matches.
    top = result.hits[0].memory
    assert top.content == "The notification queue runs on Redis streams"
    assert top.created_at > 0 and top.project_id == egm.default_project

    # Another project's memory holds all five words: the index is asked for this
    # project's memories only, so it changes neither the answer nor the queries.
    egm.remember(
        {"content": "Why the notification queue times out: Redis streams back-pressure"},
        project_id="elsewhere",
    )
    egm.retrieval.terms.clear()
    with statements_read(egm) as statements:
        assert ids(egm.search(QUEUE_QUESTION, mode="FULLTEXT")) == [notify[0]]
    assert statements.count("fulltext_candidates") == 1


def test_full_text_filters_reach_past_the_best_matches_they_leave_out(egm: GraphMem):
    # Thirty notes say "deploy" three times; the one rule says it once in a long
    # text, so the index ranks it last. In a project past the whole-project
    # ranking, the filters apply to the fields of the best by BM25, read a few
    # at a time, and when all the index gave is filtered out it is asked for more.
    egm.retrieval.config = dataclasses.replace(
        egm.retrieval.config, exact_fulltext_below=0, fulltext_rescore=8
    )
    egm.remember_many([{"content": f"deploy step {n}: deploy, then deploy"} for n in range(30)])
    rule = egm.remember(
        {
            "content": "Before the quarterly release the team agrees on a freeze window, "
            "checks the change log with the on-call engineer and only then may deploy",
            "memory_type": "rule",
        }
    )
    with statements_read(egm) as statements:
        found = egm.search("deploy", mode="FULLTEXT", limit=1, filters={"types": ["rule"]})
    assert ids(found) == [rule.id]
    assert statements.count("fulltext_candidates") == 2  # k 8, then 32
    unfiltered = egm.search("deploy", mode="FULLTEXT", limit=5)
    assert rule.id not in ids(unfiltered) and len(unfiltered.hits) == 5


@pytest.mark.parametrize("exact_below", [0, 5_000], ids=["index", "exact"])
def test_the_nearest_memories_stay_found_after_their_properties_are_written(
    egm: GraphMem, exact_below: int
):
    # FalkorDB 4.16 leaves a memory's old vector in its index on every write to
    # the memory, and the orphans shadow live vectors: after a few accesses a
    # kNN of k gives fewer than k. Search asks for more until it has enough.
    # A small project is scored whole (no index): the same nearest, exactly.
    egm.retrieval.config = dataclasses.replace(egm.retrieval.config, exact_vector_below=exact_below)
    topics = ["deploy", "database", "cache", "queue", "billing", "auth", "search", "export"]
    egm.remember_many(
        [
            {
                "content": f"Note {n} about the {topics[n % 8]} service: step {n} of the "
                f"{topics[(n * 3) % 8]} runbook"
            }
            for n in range(400)
        ],
        dedup=False,
    )
    query = "how is the cache service runbook handled"

    def nearest() -> list[str]:
        return ids(egm.search(query, mode="VECTOR", limit=10, min_relevance=0.0))

    before = nearest()
    assert len(before) == 10
    with statements_read(egm) as statements:
        nearest()
    assert ("vector_scan" in statements) == bool(exact_below)
    for _ in range(8):
        for memory_id in before:
            egm.record_access(memory_id)
    assert nearest() == before


def test_candidates_whose_fields_hold_quotes_and_backslashes_are_read_intact(egm: GraphMem):
    # Candidates' fields come as one JSON text, which FalkorDB does not escape:
    # a memory with a quote or backslash in a tag comes as a map instead, and
    # the filters read the same tags either way.
    tags = ['say "hi"', "C:\\temp"]
    odd = egm.remember(
        {"content": 'The nightly "export" writes CSV to the reports bucket', "tags": tags}
    )
    plain = egm.remember({"content": "The nightly export also writes a summary", "tags": ["ok"]})
    for mode in MODES:
        found = egm.search("nightly export reports", mode=mode, min_relevance=0.0)
        assert {odd.id, plain.id} <= set(ids(found)), mode
        only = egm.search("nightly export", mode=mode, min_relevance=0.0, filters={"tags": tags})
        assert ids(only) == [odd.id], mode
        assert only.hits[0].memory.tags == tags
        assert only.hits[0].memory.content.startswith('The nightly "export"')


def test_full_text_hits_the_vector_index_missed_are_scored_and_complete(egm, corpus):
    # HYBRID with the vector retriever's candidates and full text's overlapping
    # or not, every hit has its fields and its full-text score.
    result = egm.search(TOKEN_QUERY, limit=3, min_relevance=0.0)
    hit = next(h for h in result.hits if h.memory.id == corpus[TOKEN_TARGET])
    assert hit.memory.content == TOKEN_TARGET
    fulltext = [r for r in hit.explanation.retrievers if r.retriever.value == "fulltext"]
    assert fulltext and fulltext[0].rank == 1 and fulltext[0].score > 0


EXCHANGE = [
    "user: Hey, I need help staying organised this term.",
    "assistant: Happy to help. What's your research about?",
    "user: Coral bleaching. I measure how heat stress changes the algae in Acropora.",
    "assistant: Fascinating and very timely.",
]


def relevance_of(result, memory_id: str) -> float:
    (hit,) = [h for h in result.hits if h.memory.id == memory_id]
    return next(c.value for c in hit.explanation.components if c.name == "relevance")


def test_the_turn_that_answers_a_matching_question_shares_its_relevance(egm: GraphMem):
    turns = egm.remember_many(
        [
            {"content": c, "session_id": "s1", "memory_type": "event", "occurred_at": 1e9 + n}
            for n, c in enumerate(EXCHANGE)
        ]
    )
    egm.remember_many([{"content": c} for c in DISTRACTORS])
    question, answer = turns[1], turns[2]
    query = "What is my doctoral research about?"
    vector = egm.search(query, mode="VECTOR", limit=20, min_relevance=0.0)
    hybrid = egm.search(query, limit=20, min_relevance=0.0)
    # Alone, the answer is far less similar to the query than the question is;
    # in HYBRID the exchange is scored as one: both take the same relevance
    # (the question then keeps its substance's share of it: it says little),
    # and the answer comes first.
    assert relevance_of(vector, answer) < relevance_of(vector, question) - 0.2
    said = ScoreFusion().substance(len(set(analyse(EXCHANGE[1]))))
    assert said < 1.0
    assert relevance_of(hybrid, answer) * said == pytest.approx(relevance_of(hybrid, question))
    assert ids(hybrid).index(answer) < ids(hybrid).index(question)
    notes = {
        hit.memory.id: [n for n in hit.explanation.notes if "exchange" in n] for hit in hybrid.hits
    }
    assert any(question in note for note in notes[answer])
    assert any(answer in note for note in notes[question])
    assert not any(notes[i] for i in notes if i not in (question, answer))
    context = egm.knowledge_context(query, max_results=20, min_relevance=0.0, record_access=False)
    in_context = [item.memory.id for item in context.items]
    assert in_context.index(answer) < in_context.index(question)


LONG_QUERY = (
    "We talked about the quarterly budget review and the spreadsheet for the finance team. "
    "Then lunch plans came up, and nobody could agree on the place. "
    "Anyway, the real problem is this. "
    "The invoice generator crashes whenever a customer has no billing address. "
    "Who knows how to fix it?"
)


def test_a_long_querys_last_sentences_join_its_vector_similarity_in_hybrid_only(
    egm: GraphMem, corpus
):
    target = corpus[PARAPHRASE_TARGET]
    with configured(egm, recent=RecentPart(sentences=0)):
        off = egm.search(LONG_QUERY, limit=10, min_relevance=0.0)
    on = egm.search(LONG_QUERY, limit=10, min_relevance=0.0)
    # The last sentences are about the target: its relevance rises with them.
    assert relevance_of(on, target) > relevance_of(off, target)
    # VECTOR mode keeps the query's own cosine, and the second list adds no memory.
    vector = egm.search(LONG_QUERY, mode="VECTOR", limit=10, min_relevance=0.0)
    assert relevance_of(vector, target) == pytest.approx(
        next(
            h.score
            for hit in vector.hits
            if hit.memory.id == target
            for h in hit.explanation.retrievers
        )
    )
    assert all(hit.explanation.retrievers for hit in on.hits)


NAMED_TURNS = [
    "Sam: Oh man.",
    "Sam: Hi everyone, it's Sam!",
    "Sam: True true.",
    "Sam: I'm doing the Parkland Ten! Training plan starts Monday.",
    "Ana: Bought a secondhand armchair for twenty quid, it's enormous.",
]


@pytest.mark.parametrize("mode", ["HYBRID", "GRAPH"])
def test_a_reaction_that_carries_a_name_does_not_outrank_the_turn_that_answers(
    egm: GraphMem, mode: str
):
    turns = egm.remember_many(
        [{"content": c, "session_id": "s1", "memory_type": "event"} for c in NAMED_TURNS]
    )
    told = turns[3]
    found = egm.search("which race did Sam sign up for", mode=mode, min_relevance=0.0)
    assert ids(found)[0] == told
    notes = {hit.memory.id: hit.explanation.notes for hit in found.hits}
    assert any("says little" in n for n in notes[turns[0]])
    assert not any("says little" in n for n in notes[told])
    with configured(egm, fusion=ScoreFusion(short_power=0.0)):
        plain = egm.search("which race did Sam sign up for", mode=mode, min_relevance=0.0)
    # Without substance the name alone lifts a reaction above the answer.
    assert ids(plain).index(told) > 0
    vector = egm.search("which race did Sam sign up for", mode="VECTOR", min_relevance=0.0)
    assert not any("says little" in n for hit in vector.hits for n in hit.explanation.notes)
