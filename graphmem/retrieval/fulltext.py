"""Turning user text into a safe, selective full-text query.

User text never reaches the full-text engine as syntax: it is cut into word
tokens (``\\w+``, case-folded), so no operator, field selector, wildcard,
negation or quote can pass, and the query string always travels as a
parameter.

Which words go into the query is a cost decision. The engine scores every
document a query matches before the top ones can be chosen, so one common
word OR-ed into a query costs as much as reading a tenth of the store
(measured: 23 ms for a nine-word sentence over 100,000 memories). Words
that match at least ``common`` documents add little to TF-IDF anyway, so the
query keeps every rarer word as an alternative and requires the common
words together, as one intersection::

    rare1 | rare2 | (common1 common2 common3)

How many documents a word matches is counted with a capped probe (cost
bounded by the cap) and cached for a few minutes; a stale count only shifts
that cost trade-off, never which project's memories can be returned.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.text import normalise

MAX_TERMS = 48
"""Longer texts keep their last distinct words (the end of a conversation is
its present); more words add cost, not recall."""
MAX_TERM_CHARS = 64
PROBE_SLOTS = 8
"""Terms per probe statement (``fulltext_term_counts`` has this many slots)."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""English function words: they match almost everything and mean little."""


def query_terms(text: str) -> list[str]:
    """The distinct content words of ``text`` in order, at most ``MAX_TERMS``, the last ones."""
    seen: dict[str, None] = {}
    for word in reversed(normalise(text).split()):
        if word not in STOPWORDS and len(word) <= MAX_TERM_CHARS:
            seen.setdefault(word, None)
            if len(seen) == MAX_TERMS:
                break
    return list(reversed(seen))


@dataclass(frozen=True)
class FulltextQuery:
    text: str
    """The engine query; empty when no word can match anything."""
    rare: tuple[str, ...]
    common: tuple[str, ...]
    matches_at_most: int | None
    """How many memories the query can match, when every word's count is exact
    (no common word); ``None`` when unknown."""


def build_query(
    terms: Sequence[str], counts: dict[str, int], *, common: int, dialect: str = "falkordb"
) -> FulltextQuery:
    """Rare words as alternatives, common words required together.

    A word no document contains is dropped (it cannot help and an all-AND
    group with it would match nothing). With no rare word, the common words'
    intersection is the query; a single common word stands alone. FalkorDB
    speaks RediSearch syntax (``a|b|(c d)``), Neo4j Lucene's
    (``a OR b OR (c AND d)``).
    """
    rare = tuple(t for t in terms if 0 < counts.get(t, 0) < common)
    frequent = tuple(t for t in terms if counts.get(t, 0) >= common)
    either, both = (" OR ", " AND ") if dialect == "neo4j" else ("|", " ")
    parts = list(rare)
    if len(frequent) == 1:
        parts.append(frequent[0])
    elif frequent:
        parts.append("(" + both.join(frequent) + ")")
    return FulltextQuery(
        text=either.join(parts),
        rare=rare,
        common=frequent,
        matches_at_most=None if frequent else sum(counts[t] for t in rare),
    )


class TermCounts:
    """How many documents each word matches (capped), cached for ``ttl`` seconds.

    Uses a monotonic clock: this is cache housekeeping, not part of any score.
    """

    def __init__(
        self,
        probe: Callable[[list[str]], dict[str, int]],
        *,
        ttl: float = 300.0,
        capacity: int = 50_000,
    ) -> None:
        self._probe = probe
        self._ttl = ttl
        self._capacity = capacity
        self._cache: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def counts(self, terms: Sequence[str]) -> dict[str, int]:
        now = time.monotonic()
        found: dict[str, int] = {}
        missing: list[str] = []
        with self._lock:
            for term in terms:
                cached = self._cache.get(term)
                if cached is not None and cached[1] > now:
                    found[term] = cached[0]
                    self._cache.move_to_end(term)
                else:
                    missing.append(term)
        if missing:
            probed = self._probe(missing)
            with self._lock:
                for term in missing:
                    found[term] = probed.get(term, 0)
                    self._cache[term] = (found[term], now + self._ttl)
                    self._cache.move_to_end(term)
                while len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
