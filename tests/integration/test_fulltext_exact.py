"""FULLTEXT ranks every match of a project by BM25, exactly and stably.

A project of up to ``exact_fulltext_below`` memories (5,000) is ranked whole.

Random projects in the shape that broke it (a speaker's name in most texts,
many near-identical short texts) are written into a store that holds other
projects, and each query's FULLTEXT ranks and scores are compared with a
BM25 computed here over the project's memories, with graphmem's analysis
(its tokens, stop words and stems) but this file's own counting and formula.

They are compared right after the writes, and again after the writes that
move the index's own scores: a property written to a memory re-indexes its
document (FalkorDB leaves the old one deleted until its garbage collection,
30 to 60 s later, changes every score; Lucene counts it until its segments
merge), and another project's memories come and go. Neither can be forced
from graphmem, so the test makes the state they act on instead of waiting
for them: full text never reads the index's score, so nothing they change
can reach the answer.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import GraphMem
from graphmem.domain.analysis import analyse, stem
from graphmem.domain.retrieval.search import SearchFilters
from graphmem.services.embeddings import memory_text
from graphmem.services.retrieval.fulltext import query_terms

K1, B = 1.2, 0.75
NAMES = ["Alice", "Bob", "Carol"]
WORDS = [
    "deploy",
    "deploys",
    "deployed",
    "cache",
    "queue",
    "queues",
    "billing",
    "export",
    "search",
    "retry",
    "backoff",
    "window",
    "freeze",
    "release",
    "rollback",
    "token",
    "invoice",
    "note",
]
FILLER = ["the", "and", "said", "so", "it", "was", "we", "then"]
BULK = [0, 80, 320, 320]
"""Near-identical turns added to a project ("Alice: deploy note 17"): past 250
matches of one query, where the index's own top 250 had been all that BM25 ranked."""


def texts(draw_words: st.SearchStrategy[list[str]]) -> st.SearchStrategy[str]:
    """A short turn: most name a speaker, a few words of a small vocabulary, stop words."""
    return st.builds(
        lambda name, body, tail: " ".join(filter(None, [name, *body, tail])),
        st.sampled_from([*NAMES, *NAMES, *NAMES, ""]),
        draw_words,
        st.sampled_from(["", "", "okay", "thanks Bob", "really"]),
    )


TEXT = texts(st.lists(st.sampled_from(WORDS + FILLER), min_size=0, max_size=5))
QUERY = st.lists(
    st.sampled_from([*WORDS, *NAMES, *NAMES, "note", *FILLER, "nowhere"]), min_size=1, max_size=6
)


def reference(
    memories: dict[str, str], query: str, searchable: set[str] | None = None
) -> list[tuple[str, float]]:
    """Okapi BM25 (k1 1.2, b 0.75, Lucene's IDF) for ``query`` of every memory a
    search may return (``searchable``, all by default), over the project alone
    (its statistics count every memory, archived ones too, as the index does),
    best first and equal scores by id; each score over the query's total IDF,
    bent below 1 as full text reports it."""
    stems = {memory_id: analyse(text) for memory_id, text in memories.items()}
    held = Counter(s for found in stems.values() for s in set(found))
    documents = len(memories)
    mean = max(sum(len(found) for found in stems.values()) / max(documents, 1), 1.0)
    weights: dict[str, float] = {}
    for word in query_terms(query):
        matches = held[stem(word)]
        if matches:
            weights[stem(word)] = math.log(1.0 + (documents - matches + 0.5) / (matches + 0.5))
    mass = sum(weights.values()) or 1.0
    scored = []
    for memory_id, found in stems.items():
        if searchable is not None and memory_id not in searchable:
            continue
        tf = Counter(s for s in found if s in weights)
        if not tf:
            continue
        norm = K1 * (1.0 - B + B * len(found) / mean)
        score = sum(w * tf[t] * (K1 + 1.0) / (tf[t] + norm) for t, w in weights.items() if tf[t])
        scored.append((memory_id, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return [(memory_id, bent(score / mass)) for memory_id, score in scored]


def bent(share: float) -> float:
    """Up to 0.8 as it is, then towards 1 by tanh with slope 1 at 0.8, as full
    text reports it: each memory keeps its place where a cap at 1 tied them."""
    return share if share <= 0.8 else 0.8 + 0.2 * math.tanh((share - 0.8) / 0.2)


def fulltext_ranking(
    gm: GraphMem, query: str, project: str, limit: int
) -> list[tuple[int, str, float]]:
    """FULLTEXT's rank and score of every hit, as its explanation gives them."""
    found = gm.search(query, mode="FULLTEXT", limit=limit, min_relevance=0.0, project_id=project)
    return sorted(
        (r.rank, hit.memory.id, r.score)
        for hit in found.hits
        for r in hit.explanation.retrievers
        if r.retriever == "fulltext"
    )


def searchable(gm: GraphMem, memories: dict[str, str], project: str) -> set[str]:
    """The memories a search's default filters let through: not archived ones
    (a project past its working tier's capacity archives the overflow as it is
    written)."""
    allows = SearchFilters().allows
    return {m.id for m in gm.get_many(list(memories), project_id=project) if m and allows(m)}


def assert_exact(
    gm: GraphMem,
    memories: dict[str, str],
    queries: list[str],
    project: str,
    limit: int,
) -> None:
    """Each hit's FULLTEXT rank is its place in the reference, with its score."""
    allowed = searchable(gm, memories, project)
    for query in queries:
        assert_ranked(gm, memories, allowed, query, project, limit)


def assert_ranked(
    gm: GraphMem, memories: dict[str, str], allowed: set[str], query: str, project: str, limit: int
) -> None:
    expected = reference(memories, query, allowed)
    ranked = fulltext_ranking(gm, query, project, limit)
    assert len(ranked) == min(limit, len(expected))
    for rank, memory_id, score in ranked:
        want_id, want_score = expected[rank - 1]
        assert memory_id == want_id, (query, rank)
        assert math.isclose(score, want_score, rel_tol=1e-9, abs_tol=1e-12), (query, rank)


def written(gm: GraphMem, items: list[str], project: str) -> dict[str, str]:
    """The project's memories after writing ``items`` (duplicates merge), id -> text."""
    half = len(items) // 2
    ids = gm.remember_many([{"content": text} for text in items[:half]], project_id=project)
    ids += [gm.remember({"content": text}, project_id=project).id for text in items[half:]]
    unique = list(dict.fromkeys(ids))
    memories = gm.get_many(unique, project_id=project)
    return {m.id: memory_text(m.content, m.rationale) for m in memories if m is not None}


@pytest.mark.slow
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    items=st.lists(TEXT.filter(str.strip), min_size=1, max_size=40),
    others=st.lists(TEXT.filter(str.strip), min_size=1, max_size=20),
    bulk=st.sampled_from(BULK),
    queries=st.lists(QUERY.map(" ".join), min_size=1, max_size=3),
    limit=st.sampled_from([1, 5, 50]),
)
def test_fulltext_ranks_every_match_by_the_projects_own_bm25(
    gm: GraphMem,
    items: list[str],
    others: list[str],
    bulk: int,
    queries: list[str],
    limit: int,
) -> None:
    project, other = f"p-{uuid.uuid4().hex[:8]}", f"o-{uuid.uuid4().hex[:8]}"
    elsewhere = written(gm, others, other)
    memories = written(gm, items, project)
    if bulk:
        turns = [f"{NAMES[n % 3]}: {WORDS[n % 5]} note {n}" for n in range(bulk)]
        ids = gm.remember_many([{"content": text} for text in turns], project_id=project)
        memories.update(zip(ids, turns, strict=True))
    assert_exact(gm, memories, queries, project, limit)

    # What moves the index's own scores and its order among equal ones: writes
    # to the memories' properties (each re-indexes the document, leaving a
    # deleted one behind), and another project's memories forgotten and written.
    for memory_id in list(memories)[::2]:
        gm.record_access(memory_id, project_id=project)
    for memory_id in list(memories)[1::3]:
        gm.pin(memory_id, project_id=project)
    for memory_id in list(elsewhere)[::2]:
        gm.forget(memory_id, project_id=other)
    written(gm, items, other)
    assert_exact(gm, memories, queries, project, limit)


@pytest.mark.slow
def test_a_project_at_the_exact_size_is_ranked_whole(gm: GraphMem) -> None:
    # At the size the whole-project ranking stops (5,000 memories), a name that
    # most turns hold and near-identical short turns: the shape in which the
    # index's own best 250 had been all that BM25 saw.
    project = f"p-{uuid.uuid4().hex[:8]}"
    size = gm.retrieval.config.exact_fulltext_below
    turns = [
        f"{NAMES[n % 3]}: {WORDS[n % 7]} {WORDS[(n * 5) % 11]} note {n % 40}" for n in range(size)
    ]
    ids = gm.remember_many([{"content": text} for text in turns], project_id=project, dedup=False)
    memories = dict(zip(ids, turns, strict=True))
    queries = ["Alice deploy note 17", "what did Carol say about the billing queue", "Bob"]
    assert_exact(gm, memories, queries, project, 50)
    for memory_id in ids[::50]:
        gm.record_access(memory_id, project_id=project)
    assert_exact(gm, memories, queries, project, 50)
