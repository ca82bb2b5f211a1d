"""The analysis full text ranks by: case-folded words, stop words out, Snowball
English stems, the analysis RediSearch's and Lucene's English analysers apply.

It is pure and shared: retrieval's BM25 reads a text's stems through it, and
every write stores the length it gives a memory's text (``LENGTH_FIELD``), so
a project's mean length is a sum the database keeps current with the writes
rather than a sample analysed again at a query (graphmem.store.queries.fulltext).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import snowballstemmer

from graphmem.domain import textscope
from graphmem.domain.text import words

MAX_TERM_CHARS = 64
"""Longer words are not indexed (nor counted)."""
LENGTH_FIELD = "text_length"
"""The memory property holding how many stems its content and rationale have
(``text_length``): what BM25 normalises a memory's term counts by, summed
over a project for its mean."""

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
        stemmed: str = _stemmer.stemWord(word)
    return stemmed


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


def indexed_text(content: str | None, rationale: str | None) -> str:
    """A memory's content and rationale as one text, as full text's statements
    return it (``fulltext_matches``): analysed in this form at a write, it is
    found analysed when a query ranks it."""
    return (content or "") + ("" if rationale is None else f" {rationale}")


def text_length(content: str | None, rationale: str | None) -> int:
    """How many stems full text counts in a memory of ``content`` and ``rationale``:
    the length BM25 reads of it, stored with it at every write that sets its text."""
    return len(analyse(indexed_text(content, rationale)))


def indexed_fields(
    project_id: str,
    agent_id: str | None,
    visibility: str | None,
    content: str | None,
    rationale: str | None,
) -> dict[str, str | int]:
    """What full text reads of a memory beside its text, set by every write that
    creates one: its scope words (graphmem.domain.textscope) and its length."""
    return {
        textscope.FIELD: textscope.text_scope(project_id, agent_id, visibility),
        LENGTH_FIELD: text_length(content, rationale),
    }
