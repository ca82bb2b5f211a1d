"""Pseudo-relevance feedback: a short query scored again with the words of what it found.

A short question ("What is my doctoral research about?") shares few words with
the memories that answer it, while the best of its first hits often hold the
words those answers use. RM3 (Lavrenko and Croft's relevance model, as Lucene
and Anserini run it): take the best ``docs`` memories of the first, fused
ranking as if they were relevant, find the words most typical of them
(``relevance_model``), and score the candidates again by BM25 for the query's
own words and those, weighed together (``expanded_weights``). A memory's
lexical value is then the better of its own and ``factor`` times the expanded
one (``fusion.ScoreFusion.fuse``), and a memory the expanded query matched
says so in its explanation (retriever ``feedback``).

Only the candidates both retrievers already found are scored again (the
nearest memories by meaning among them): asking the index again with ten more
words would read every memory holding any of them, which in a large store is
most of the cost of a query. Long queries are not expanded
(``max_query_terms``): a query of a few dozen words already holds its
vocabulary, and on the dev set of such queries expanding them lost recall
(docs/retrieval.md). The cost, for a short query, is BM25 over the
candidates in Python and the document counts of the new words (cached as the
query's are); no index query and no embedding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphmem.domain.analysis import analyse, is_content_word, stem
from graphmem.domain.text import words


@dataclass(frozen=True)
class LexicalFeedback:
    """Whether and how HYBRID, GRAPH and knowledgeContext score their candidates
    again (RM3: the query's words plus the words most typical of its best first hits).
    The defaults were chosen on the dev sets (docs/retrieval.md)."""

    docs: int = 3
    """The best first-pass hits the words are taken from (0: no feedback)."""
    terms: int = 10
    """How many of their words join the query."""
    original_weight: float = 0.5
    """The query's own words' share of the expanded query; the new words have the rest."""
    factor: float = 0.5
    """The share of the expanded query's lexical relevance a memory may take
    (its own query's counts in full): words the query did not say are weaker
    evidence, as a relation walked is (search.RelationFactors)."""
    max_query_terms: int = 10
    """Only a query of at most this many content words (stop words out, one per
    stem) is expanded: a question or a few keywords, not a passage."""


def relevance_model(documents: Sequence[tuple[float, str]], *, terms: int) -> dict[str, float]:
    """RM1: the words most typical of the feedback documents, ``P(w | R)``.

    Each ``(weight, text)`` document contributes its words' frequencies
    (``tf / length``, over the full-text analysis: stop words out, stems)
    times its weight; the best ``terms`` stems, each spelled by one of its
    words, come back with their probabilities normalised to sum to 1."""
    mass: dict[str, float] = {}
    spelling: dict[str, str] = {}
    total = sum(max(weight, 0.0) for weight, _ in documents)
    if total <= 0:
        return {}
    for weight, text in documents:
        stems = analyse(text)
        if not stems or weight <= 0:
            continue
        for word in words(text):
            if is_content_word(word):
                spelling.setdefault(stem(word), word)
        for s, count in Counter(stems).items():
            mass[s] = mass.get(s, 0.0) + (weight / total) * count / len(stems)
    best = sorted((s for s in mass if s in spelling), key=lambda s: (-mass[s], s))[:terms]
    kept = sum(mass[s] for s in best)
    return {spelling[s]: mass[s] / kept for s in best} if kept > 0 else {}


def expanded_weights(
    idf: Mapping[str, float],
    query: Sequence[str],
    model: Mapping[str, float],
    *,
    original_weight: float,
) -> dict[str, float]:
    """RM3's query, as BM25 weights per stem: ``idf * (lambda / |q| + (1 - lambda) P(w|R))``
    for the query's own words (``query``: stems) and the model's words; a stem
    no memory holds (IDF 0) drops out."""
    own = [s for s in dict.fromkeys(query) if idf.get(s, 0.0) > 0]
    share: dict[str, float] = {}
    for s in own:
        share[s] = original_weight / len(own)
    for word, p in model.items():
        s = stem(word)
        if idf.get(s, 0.0) > 0:
            share[s] = share.get(s, 0.0) + (1.0 - original_weight) * p
    return {s: idf[s] * w for s, w in share.items()}
