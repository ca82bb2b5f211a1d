"""Full-text retrieval that ranks by BM25 on every backend.

User text never reaches the full-text engine as syntax: it is cut into word
tokens (``\\w+``, case-folded), so no operator, field selector, wildcard,
negation or quote can pass, and the query string always travels as a
parameter. The store's dialect spells the query (``Dialect.fulltext_query``:
RediSearch on FalkorDB, Lucene on Neo4j).

The index finds the matches; BM25 ranks them. FalkorDB's index (RediSearch)
has one scorer, TF-IDF divided by the distance between the matched words, and
no option to change it: a memory matching two query words far apart scores
below one matching a single word (measured: 0.75 against 4.0), so its order
cannot be the answer. Every backend's matches are therefore scored here
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

The ranking is exact: every memory of the scope that holds a query word is
ranked, never a subset the index's own scorer chose (its scores, and its order
among equal ones, move whenever any property of a memory is written, which
re-indexes the memory's document, and with what other projects hold). The
cost is kept down by reading the words' matches in turn, MaxScore-style
(``read_order``): the rare words' matches first, in one statement, then each
common word's (a word held by at least ``common_share`` of the scope's
memories), rarest first, only while the most its remaining words could add to
a memory that holds nothing else (``term_bound``) could still place such a
memory among the best the caller asked for. A memory read is scored with every
query word it holds, so each score is final; the memories that score above
what the unread words could give one that holds only them are final in their
order too. Equal scores are ordered by memory id.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import snowballstemmer

from graphmem.domain.text import words

MAX_TERMS = 48
"""Longer texts keep their last distinct words (the end of a conversation is
its present); more words add cost, not recall."""
MAX_TERM_CHARS = 64
PROBE_SLOTS = 8
"""Terms per probe statement (``fulltext_term_counts`` has this many slots)."""
ESTIMATED_FROM = 20
"""Sampled memories a word must be found in for its count to be estimated from
the sample (``Corpus.estimate``) rather than counted by the index."""
K1 = 1.2
B = 0.75

_STOPWORD_LIST = """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing done down
    during each few for from further had has have having he her here hers herself
    him himself his how i if in into is it its itself just me might more most must
    my myself no nor not now of off on once only or other our ours ourselves out
    over own same shall she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up upon
    us very was we were what whatever when whenever where whether which while who
    whom whose why will with would yet you your yours yourself yourselves
    also ever really yes yeah oh ok okay hey hi hello please thanks thank
    s t d ll m re ve don didn doesn isn wasn aren weren haven hasn hadn wouldn
    couldn shouldn cannot
    """
STOPWORDS = frozenset(_STOPWORD_LIST.split())
"""Function words, pronouns, auxiliaries and question words (what, when, did):
they match almost every memory and say nothing about which one is meant."""

_stemmer = snowballstemmer.stemmer("english")
_stemming = threading.Lock()
"""The stemmer keeps its word in itself while it works: two threads stemming at
once corrupt each other's word (an IndexError, or a wrong stem)."""


STEM_CACHE = 200_000
"""Words, and texts, whose analysis is kept; each table starts afresh when full."""
_stems: dict[str, str] = {}
_analysed: dict[str, str] = {}
"""Word -> its stem, or "" for a word analysis drops (a stop word, an overlong
word). Plain dicts of strings: the garbage collector does not track them,
where an ``lru_cache``'s links were 200,000 more objects for every full pass
to walk (graphmem.services.heap)."""
_texts: dict[str, str] = {}
"""Text -> its stems joined by spaces (a stem holds none)."""


def _kept(table: dict[str, str], word: str, make: Callable[[str], str]) -> str:
    """``make(word)``, remembered in ``table`` until it holds ``STEM_CACHE`` words."""
    found = table.get(word)
    if found is None:
        if len(table) >= STEM_CACHE:
            table.clear()
        found = table[word] = make(word)
    return found


def stem(word: str) -> str:
    """The Snowball English stem, the one RediSearch and Lucene's English analyser use.

    A number is its own stem: it has no suffix to strip, and numbers (ticket
    ids, versions, dates) were nearly every word a search had not seen before
    (28 of 28 at 100,000 memories), each a trip through the stemmer."""
    if word.isdigit():
        return word
    return _kept(_stems, word, _stem_word)


def _stem_word(word: str) -> str:
    with _stemming:
        return _stemmer.stemWord(word)


def is_content_word(word: str) -> bool:
    """A folded word that full text indexes: not a stop word, not overlong, and
    holding a letter or digit (RediSearch refuses a query term of underscores
    alone, which ``\\w`` counts as a word)."""
    return word not in STOPWORDS and len(word) <= MAX_TERM_CHARS and word.strip("_") != ""


def _analysed_word(word: str) -> str:
    return _kept(_analysed, word, lambda w: stem(w) if is_content_word(w) else "")


def analyse(text: str) -> list[str]:
    """The stems of ``text``'s content words, in order, repeats kept (BM25's term counts).

    Full text analyses every candidate it ranks (a thousand texts for a query
    of common words, most of them seen by earlier queries), so this is the hot
    path of a search: one table lookup per text once the text has been seen,
    one per word before."""
    found = _texts.get(text)
    if found is None:
        found = _kept(_texts, text, _stems_of)
    return found.split()


def _stems_of(text: str) -> str:
    known = _analysed.get
    stems = []
    for word in words(text):
        found = known(word)
        if found is None:
            found = _analysed_word(word)
        if found:
            stems.append(found)
    return " ".join(stems)


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


def read_order(
    terms: Sequence[str],
    counts: Mapping[str, int],
    *,
    documents: int,
    common_share: float,
    wanted: int,
) -> list[list[str]]:
    """The words whose matches are read, group by group: every rare word at once,
    then each common word alone, the rarest (highest IDF) first.

    A word is common when it matches at least ``common_share`` of the scope's
    ``documents`` (at least one memory): relative to the project's size, so a
    speaker's name in most of a conversation's turns is common however small
    the project. The first group also takes the rarest common words while all
    its words match fewer than ``wanted`` memories in all: that many matches
    must be read before any word can be skipped, so a statement apiece would be
    round trips for nothing. A word that matches nothing is left out."""
    common = max(1.0, common_share * documents)
    matched = [t for t in terms if counts.get(t, 0) > 0]
    first = [t for t in matched if counts[t] < common]
    frequent = sorted((t for t in matched if counts[t] >= common), key=lambda t: (counts[t], t))
    held = sum(counts[t] for t in first)
    while frequent and held < wanted:
        held += counts[frequent[0]]
        first.append(frequent.pop(0))
    return ([first] if first else []) + [[t] for t in frequent]


def term_bound(weight: float, mean_length: float, *, k1: float = K1, b: float = B) -> float:
    """The most one query word of IDF ``weight`` can add to a memory's BM25 (``bm25``).

    A memory holding the word ``tf`` times is at least ``tf`` stems long, so its
    term is at most ``weight tf (k1 + 1) / (tf + k1 (1 - b) + k1 b tf / mean)``,
    below ``weight (k1 + 1) / (1 + k1 b / mean)`` for every ``tf``: a memory
    holding only words not read yet scores below the sum of their bounds."""
    return weight * (k1 + 1.0) / (1.0 + k1 * b / max(mean_length, 1.0))


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
    def from_sample(cls, documents: int, texts: Sequence[str], indexed: int = 0) -> Corpus:
        analysed = [analyse(text) for text in texts]
        held: Counter[str] = Counter()
        for stems in analysed:
            held.update(set(stems))
        return cls(
            documents=documents,
            mean_length=sum(map(len, analysed)) / max(len(analysed), 1),
            sampled=len(analysed),
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
    for doc_id, stems in documents:
        counts: dict[str, int] = {}
        for s in stems:
            if s in query:
                counts[s] = counts.get(s, 0) + 1
        if not counts:
            scores[doc_id] = 0.0
            continue
        norm = k1 * (1.0 - b + b * len(stems) / mean)
        scores[doc_id] = sum(
            weight * tf * (k1 + 1.0) / (tf + norm)
            for term, weight in query.items()
            if (tf := counts.get(term, 0))
        )
    return scores


def query_weights(
    terms: Sequence[str], counts: Mapping[str, int], corpus: Corpus
) -> dict[str, float]:
    """Each query word's stem and its IDF (counts are per word, as the index matched them)."""
    return {stem(t): idf(counts.get(t, 0), corpus.documents) for t in terms if counts.get(t, 0)}


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
