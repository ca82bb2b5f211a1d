"""Full-text retrieval that ranks by BM25 on every backend.

User text never reaches the full-text engine as syntax: it is cut into word
tokens (``\\w+``, case-folded), so no operator, field selector, wildcard,
negation or quote can pass, and the query string always travels as a
parameter. The store's dialect spells the query (``Dialect.fulltext_query``:
RediSearch on FalkorDB, Lucene on Neo4j).

The index finds candidates; BM25 ranks them. FalkorDB's index (RediSearch)
has one scorer, TF-IDF divided by the distance between the matched words, and
no option to change it: a memory matching two query words far apart scores
below one matching a single word (measured: 0.75 against 4.0), so its order
cannot be the answer. Every backend's candidates are therefore scored here
with Okapi BM25 (k1 1.2, b 0.75) over the same analysis the index applies:
case-folded words, stop words out (question words included), Snowball English
stems. The statistics are a project's, as the caller may see it: every index
query carries the scope words of graphmem.domain.textscope, so nothing another
project (or another agent's private memories) holds changes a project's
results or scores. The scope's size, mean length and common words' document
frequencies come from a uniform sample (``Corpus``); rare words, and every
word of a scope the sample covers, are counted by the index itself (a capped
count per word, cached for a few minutes), so IDF means the same in a project
of 100 memories or 1,000,000.

Which words go into the index query is a cost decision. The engine reads
every document a query matches, so one common word OR-ed into a query costs
as much as reading a tenth of the store (measured: 23 ms for a nine-word
sentence over 100,000 memories). Words that match at least ``common``
documents (a share of the project's, ``common_term_share``) are required
together, as one intersection, and the rarer ones are alternatives::

    rare1 | rare2 | (common1 common2 common3)

When no memory holds every common word, the index is asked for the memories
holding all of them but one, then all but two, and so on (``relaxations``),
until a match comes back: the candidates are the memories that hold the most
of what the query says, not those holding one leftover word.

That rule is for a large project. One of up to ``exact_fulltext_below``
memories (``RetrievalConfig``) is ranked whole: every word is an alternative,
every match is read, and BM25 alone orders them, equal scores by id, so
neither the index's own scorer nor another project can change the answer.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from graphmem.domain.analysis import analyse, is_content_word, stem
from graphmem.domain.retrieval.answerable import QueryWord
from graphmem.domain.text import words
from graphmem.store.dialect import Dialect

MAX_TERMS = 48
"""Longer texts keep their last distinct words (the end of a conversation is
its present); more words add cost, not recall."""
PROBE_SLOTS = 16
"""Terms per probe statement (``fulltext_term_counts`` has this many slots): a
query's own words and the ten feedback adds are counted in one round trip
each, where eight slots took two for feedback's (under a mixed load every
statement waits its turn at the database, so a round trip costs more than the
empty slots do)."""
MAX_GROUPS = 16
"""Intersections one relaxed query holds at most (``relaxations``)."""
ESTIMATED_FROM = 20
"""Sampled memories a word must be found in for its count to be estimated from
the sample (``Corpus.estimate``) rather than counted by the index."""
K1 = 1.2
B = 0.75


def query_terms(text: str) -> list[str]:
    """The content words of ``text``, one per stem, at most ``MAX_TERMS``, the last ones.

    Words, not stems, go to the index (it stems them itself and matches the
    whole family: "going" finds "go" and "goes")."""
    seen: dict[str, str] = {}
    for word in reversed(words(text)):
        if is_content_word(word):
            seen.setdefault(stem(word), word)
            if len(seen) == MAX_TERMS:
                break
    return list(reversed(seen.values()))


def build_query(
    terms: Sequence[str], counts: Mapping[str, int], *, common: int, dialect: Dialect
) -> str:
    """The engine query: rare words as alternatives, common words required together.

    A word no document contains is dropped (it cannot help and an all-AND
    group with it would match nothing). With no rare word, the common words'
    intersection is the query; a single common word stands alone. Empty when
    no word can match anything.
    """
    rare, frequent = _split(terms, counts, common)
    return dialect.fulltext_query(rare, [frequent] if frequent else [])


def relaxations(
    terms: Sequence[str], counts: Mapping[str, int], *, common: int, dialect: Dialect
) -> Iterator[str]:
    """The engine queries to ask in turn when no memory holds every common word
    of ``terms``: any memory holding all of them but one, then all but two,
    down to the rarest alone; rare words stay alternatives throughout.

    "why does the ingestion worker time out when tenacity is slow" over
    100,000 memories has five common words and no memory holding all five.
    Leaving out the most common word each time ended at "tenacity" alone: a
    thousand memories holding that one word, 12 ms to read and rank. Asking
    for four of the five finds the memories that say most of the question.
    Where a level would hold more than ``MAX_GROUPS`` intersections, its most
    common words are left out until it holds no more (about one level per word
    then, each cheap when it matches nothing)."""
    rare, frequent = _split(terms, counts, common)
    words = sorted(frequent, key=lambda t: (counts[t], t))  # rarest first
    for size in range(len(words) - 1, 0, -1):
        if size == 1:
            yield dialect.fulltext_query(rare, [words[:1]])
            return
        while len(words) > size + 1 and math.comb(len(words), size) > MAX_GROUPS:
            words.pop()
        yield dialect.fulltext_query(rare, list(itertools.combinations(words, size)))


def _split(
    terms: Sequence[str], counts: Mapping[str, int], common: int
) -> tuple[list[str], list[str]]:
    """The words that match something, rare and common."""
    rare = [t for t in terms if 0 < counts.get(t, 0) < common]
    frequent = [t for t in terms if counts.get(t, 0) >= common]
    return rare, frequent


@dataclass(frozen=True)
class Corpus:
    """What IDF and length normalisation read: the store's size and mean length,
    and a uniform sample of its memories that stands in for counting common words."""

    documents: int
    """The scope's memories (graphmem.domain.textscope): what IDF counts against."""
    mean_length: float
    sampled: int = 0
    """Memories in the sample."""
    sample_counts: Mapping[str, int] = field(default_factory=dict)
    """Stem -> sampled memories holding it."""
    indexed: int = 0
    """Memories in the whole store: how many a kNN over every project can give."""

    @classmethod
    def from_sample(
        cls, documents: int, length: int, texts: Sequence[str], indexed: int = 0
    ) -> Corpus:
        """The corpus of ``documents`` memories of ``length`` stems in all, whose
        common words ``texts`` (a uniform sample, or none) stand in for."""
        held: Counter[str] = Counter()
        for text in texts:
            held.update(set(analyse(text)))
        return cls(
            documents=documents,
            mean_length=length / documents if documents else 1.0,
            sampled=len(texts),
            sample_counts=dict(held),
            indexed=indexed,
        )

    def estimate(self, word: str) -> int | None:
        """How many memories the index matches for ``word``, from the sample, when
        the sample is a part of the store only and holds the word at least
        ``ESTIMATED_FROM`` times; ``None``: count it.

        The index counts a word by reading every memory it matches, so a common
        word's count cost more than the search (13 ms for a word in a fifth of
        100,000 memories); estimated, it costs nothing, and its IDF moves by
        little (a word in 1,000 of 100,000 memories is estimated within about
        a fifth, which moves its IDF by about 0.2 of 4.6). A rare word, whose
        IDF weighs most, is counted exactly, and cheaply."""
        if not self.sampled or self.sampled >= self.documents:
            return None
        hits = self.sample_counts.get(stem(word), 0)
        if hits < ESTIMATED_FROM:
            return None
        return round(hits * self.documents / self.sampled)


def idf(matches: int, documents: int) -> float:
    """Lucene's BM25 IDF: positive however common the word, 0 for a word no document has."""
    if matches <= 0:
        return 0.0
    documents = max(documents, matches)
    return math.log(1.0 + (documents - matches + 0.5) / (matches + 0.5))


def bm25(
    query: Mapping[str, float],
    documents: Iterable[tuple[str, Sequence[str]]],
    *,
    mean_length: float,
    k1: float = K1,
    b: float = B,
) -> dict[str, float]:
    """Okapi BM25 of each ``(id, stems)`` document for ``query`` (stem -> IDF).

    The sum over query stems of ``idf * tf (k1 + 1) / (tf + k1 (1 - b + b len / mean))``:
    each further query word a memory holds adds to its score, and repeating one
    word saturates."""
    scores: dict[str, float] = {}
    mean = max(mean_length, 1.0)
    terms = list(query.items())
    # Each query stem counted in the text by list.count, not each stem of the
    # text looked up in the query: a query holds a few stems, and a project
    # ranked whole hands over thousands of texts.
    for doc_id, stems in documents:
        norm = k1 * (1.0 - b + b * len(stems) / mean)
        score = 0.0
        for term, weight in terms:
            if tf := stems.count(term):
                score += weight * tf * (k1 + 1.0) / (tf + norm)
        scores[doc_id] = score
    return scores


SHARE_KNEE = 0.8
"""Lexical shares up to this are BM25 over the query's total IDF as it is;
above it they bend towards 1 (``lexical_share``)."""


def lexical_share(score: float, mass: float) -> float:
    """A memory's BM25 ``score`` over the query's total IDF ``mass``: the share of
    what the query says that the memory holds, on [0, 1).

    A memory holding every query word once scores about its IDF mass, and
    one holding them more often or in a shorter text scores above it; cut at
    1, every such full match tied, and ties went to what was written last.
    Above ``SHARE_KNEE`` the share bends towards 1 instead (tanh, with the
    slope 1 where it starts), so each keeps its place by BM25."""
    share = score / mass if mass > 0 else 0.0
    if share <= SHARE_KNEE:
        return share
    room = 1.0 - SHARE_KNEE
    return SHARE_KNEE + room * math.tanh((share - SHARE_KNEE) / room)


def query_words(
    terms: Sequence[str],
    counts: Mapping[str, int],
    documents: int,
    named: Iterable[str] = (),
) -> tuple[QueryWord, ...]:
    """The query's content words (``query_terms``: one per stem) with their IDF in
    the project, a word no memory holds weighing as if one more did (so it counts
    most for the answerability gate), whether a memory holds it, and whether it
    is one of the query's ``named`` words."""
    named = frozenset(named)
    return tuple(
        QueryWord(
            word=term,
            stem=stem(term),
            weight=idf(held, documents) if (held := counts.get(term, 0)) else idf(1, documents + 1),
            held=held > 0,
            name=term in named,
        )
        for term in terms
    )


def query_weights(words: Iterable[QueryWord]) -> dict[str, float]:
    """Each held query word's stem and its IDF: what BM25 weighs (a word no memory
    holds adds nothing to any score)."""
    return {word.stem: word.weight for word in words if word.held}


ScopeKey = TypeVar("ScopeKey", bound=Hashable)


class TermCounts(Generic[ScopeKey]):
    """How many documents each word matches in a scope (capped), cached for ``ttl``
    seconds per scope and word.

    A word that matches nothing is not kept: it is cheap to count again, and a
    memory written a moment later with that word must be findable by it at once.
    Uses a monotonic clock: this is cache housekeeping, not part of any score;
    a stale value only shifts a cost trade-off or an IDF slightly, never which
    project's memories can be returned.
    """

    def __init__(
        self,
        probe: Callable[[list[str], ScopeKey], Mapping[str, int]],
        *,
        ttl: float = 300.0,
        capacity: int = 50_000,
    ) -> None:
        self._probe = probe
        self._ttl = ttl
        self._capacity = capacity
        self._cache: OrderedDict[tuple[ScopeKey, str], tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def counts(self, terms: Sequence[str], scope: ScopeKey) -> dict[str, int]:
        now = time.monotonic()
        found: dict[str, int] = {}
        missing: list[str] = []
        with self._lock:
            for term in terms:
                cached = self._cache.get((scope, term))
                if cached is not None and cached[1] > now:
                    found[term] = cached[0]
                    self._cache.move_to_end((scope, term))
                else:
                    missing.append(term)
        if missing:
            probed = self._probe(missing, scope)
            with self._lock:
                for term in missing:
                    found[term] = probed.get(term, 0)
                    if found[term]:
                        self._cache[(scope, term)] = (found[term], now + self._ttl)
                        self._cache.move_to_end((scope, term))
                while len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
