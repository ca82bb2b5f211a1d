"""FULLTEXT ranks every match of a project by BM25, exactly and stably.

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

import dataclasses
import math
import uuid
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import GraphMem
from graphmem.services.embeddings import memory_text
from graphmem.services.retrieval.fulltext import analyse, query_terms, stem

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


def reference(memories: dict[str, str], query: str) -> list[tuple[str, float]]:
    """Okapi BM25 (k1 1.2, b 0.75, Lucene's IDF) of every memory for ``query``,
    over the project alone, best first and equal scores by id; each score over
    the query's total IDF, capped at 1 as full text reports it."""
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
        tf = Counter(s for s in found if s in weights)
        if not tf:
            continue
        norm = K1 * (1.0 - B + B * len(found) / mean)
        score = sum(w * tf[t] * (K1 + 1.0) / (tf[t] + norm) for t, w in weights.items() if tf[t])
        scored.append((memory_id, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return [(memory_id, min(1.0, score / mass)) for memory_id, score in scored]


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


def assert_exact(
    gm: GraphMem, memories: dict[str, str], query: str, project: str, limit: int
) -> None:
    """Each hit's FULLTEXT rank is its place in the reference, with its score."""
    expected = reference(memories, query)
    ranked = fulltext_ranking(gm, query, project, limit)
    assert len(ranked) == min(limit, len(expected))
    for rank, memory_id, score in ranked:
        want_id, want_score = expected[rank - 1]
        assert memory_id == want_id, (query, rank)
        assert math.isclose(score, want_score, rel_tol=1e-9, abs_tol=1e-12), (query, rank)


def written(gm: GraphMem, items: list[str], project: str) -> dict[str, str]:
    """The project's memories after writing ``items`` (duplicates merge), id -> text:
    the last few one at a time, the others in one batch."""
    single = max(len(items) - 5, 0)
    ids = gm.remember_many([{"content": text} for text in items[:single]], project_id=project)
    ids += [gm.remember({"content": text}, project_id=project).id for text in items[single:]]
    unique = list(dict.fromkeys(ids))
    memories = gm.get_many(unique, project_id=project)
    return {m.id: memory_text(m.content, m.rationale) for m in memories if m is not None}


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    items=st.lists(TEXT.filter(str.strip), min_size=1, max_size=40),
    others=st.lists(TEXT.filter(str.strip), min_size=1, max_size=20),
    bulk=st.sampled_from(BULK),
    queries=st.lists(QUERY.map(" ".join), min_size=1, max_size=3),
    limit=st.sampled_from([1, 5, 50]),
    share=st.sampled_from([0.0, 0.01, 0.2]),
)
def test_fulltext_ranks_every_match_by_the_projects_own_bm25(
    gm: GraphMem,
    items: list[str],
    others: list[str],
    bulk: int,
    queries: list[str],
    limit: int,
    share: float,
) -> None:
    # A share of 0 makes every word common: each is read alone, and only while
    # it can still change the best (the pruning the default share rarely needs
    # in a small project).
    gm.retrieval.config = dataclasses.replace(gm.retrieval.config, common_term_share=share)
    project, other = f"p-{uuid.uuid4().hex[:8]}", f"o-{uuid.uuid4().hex[:8]}"
    elsewhere = written(gm, others, other)
    memories = written(gm, items, project)
    if bulk:
        turns = [f"{NAMES[n % 3]}: {WORDS[n % 5]} note {n}" for n in range(bulk)]
        # Written as an import writes (rememberMany, dedup off): the third write path.
        ids = gm.remember_many(
            [{"content": text} for text in turns], project_id=project, dedup=False
        )
        memories.update(zip(ids, turns, strict=True))
    for query in queries:
        assert_exact(gm, memories, query, project, limit)

    # What moves the index's own scores and its order among equal ones: writes
    # to the memories' properties (each re-indexes the document, leaving a
    # deleted one behind; a quarter accessed, a sixth pinned), and another
    # project's memories forgotten and written.
    for memory_id in list(memories)[::4]:
        gm.record_access(memory_id, project_id=project)
    for memory_id in list(memories)[1::6]:
        gm.pin(memory_id, project_id=project)
    for memory_id in list(elsewhere)[::3]:
        gm.forget(memory_id, project_id=other)
    gm.remember_many([{"content": text} for text in items], project_id=other)
    for query in queries:
        assert_exact(gm, memories, query, project, limit)
