"""Full text's statistics per scope: a project's size, mean memory length and
word counts as one viewer may read it, cached and dropped as the project changes.

BM25 needs them for every query. A project's size and mean length cost one
aggregate over lengths its writes stored (no text is read or analysed; a
project larger than ``corpus_sample`` adds a sample for its common words), and
each uncommon word an index probe, so they are kept per scope for
``term_cache_seconds``, and a write to a small project drops them at once
(there, one memory moves its IDFs).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from graphmem.domain.viewer import acting_agent
from graphmem.services.events import ChangeKind
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.services.retrieval.fulltext import PROBE_SLOTS, Corpus, TermCounts
from graphmem.services.telemetry import Event
from graphmem.store import Store
from graphmem.store.queries import fulltext


class Scope(NamedTuple):
    """What full text counts a project's statistics over: the project as one
    viewer may read it (graphmem.domain.textscope), and the project's generation
    (``TextStatistics.on_event``), so cached statistics of a scope are dropped
    by moving to the next."""

    project_id: str
    viewer: str | None
    generation: int


MAX_SCOPES = 10_000
"""Scopes whose statistics are kept at once; beyond, the expired go first."""

_RECOUNTED = frozenset({ChangeKind.CREATED, ChangeKind.UPDATED, ChangeKind.FORGOTTEN})
"""Changes that can move a project's full-text statistics."""


class TextStatistics:
    """The cached statistics of every scope read lately, and the counts behind them."""

    def __init__(self, store: Store, config: Callable[[], RetrievalConfig]) -> None:
        self.store = store
        self._config = config
        self.terms = TermCounts(self.term_matches, ttl=config().term_cache_seconds)
        """Per scope, how many memories the full-text index matches per word."""
        self._corpus: dict[Scope, tuple[Corpus, float]] = {}
        self._sizes: dict[str, int] = {}
        """Per project, its size when its statistics were last read (``on_event``)."""
        self._generations: dict[str, int] = {}
        """Per project, how many times its cached statistics were dropped: part of
        each scope's key, so a write to a small project is counted at once."""
        self._lock = threading.Lock()

    def scope(self, project_id: str) -> Scope:
        """What full-text statistics are counted over for the acting agent in
        ``project_id`` (graphmem.domain.textscope), keyed by the project's generation."""
        return Scope(project_id, acting_agent(), self._generations.get(project_id, 0))

    def scoped(self, query: str, scope: Scope) -> str:
        """A full-text index query held to what the scope's viewer may read of its project."""
        return self.store.dialect.scoped(query, scope.project_id, scope.viewer)

    def on_event(self, event: Event) -> None:
        """A write to a small project drops its cached statistics: there, one memory
        moves its IDFs. A large one keeps them until they expire, as a write
        moves them by little (a write elsewhere reaches them then too)."""
        if event.name != "memory.changed" or event.fields.get("kind") not in _RECOUNTED:
            return
        project_id = event.fields.get("project_id")
        if not isinstance(project_id, str):
            return
        with self._lock:
            if self._sizes.get(project_id, 0) < self._config().recount_below:
                if len(self._generations) >= MAX_SCOPES:
                    # Generations start again at 0: nothing cached under one may stay.
                    self._generations.clear()
                    self._corpus.clear()
                    self.terms.clear()
                self._generations[project_id] = self._generations.get(project_id, 0) + 1

    def corpus(self, scope: Scope) -> Corpus:
        """The scope's size and mean memory length, with a uniform sample's word
        counts in a project larger than the sample, re-read every ``term_cache_seconds``."""
        with self._lock:
            cached = self._corpus.get(scope)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        config = self._config()
        sample = fulltext.corpus(self.store, scope.project_id, config.corpus_sample)
        corpus = Corpus.from_sample(sample.documents, sample.length, sample.texts, sample.indexed)
        with self._lock:
            if len(self._corpus) >= MAX_SCOPES:
                self._corpus = {
                    key: value for key, value in self._corpus.items() if value[1] > time.monotonic()
                }
                if len(self._corpus) >= MAX_SCOPES:
                    self._corpus.clear()
            self._corpus[scope] = (corpus, time.monotonic() + config.term_cache_seconds)
            if len(self._sizes) >= MAX_SCOPES:
                self._sizes.clear()
            self._sizes[scope.project_id] = corpus.documents
        return corpus

    def term_matches(self, terms: Sequence[str], scope: Scope) -> dict[str, int]:
        """How many of the scope's memories the full-text index matches per word:
        estimated from the corpus sample for a word it holds often enough, else
        counted by the index now (capped at ``term_count_cap``); ``terms`` holds
        the cached counts."""
        corpus = self.corpus(scope)
        counts: dict[str, int] = {}
        counted: list[str] = []
        for term in terms:
            estimate = corpus.estimate(term)
            if estimate is None:
                counted.append(term)
            else:
                counts[term] = estimate
        for start in range(0, len(counted), PROBE_SLOTS):
            chunk = counted[start : start + PROBE_SLOTS]
            slots = [self.scoped(term, scope) for term in chunk]
            slots += [""] * (PROBE_SLOTS - len(chunk))
            matched = fulltext.term_counts(self.store, slots, self._config().term_count_cap)
            for slot, matches in matched.items():
                counts[chunk[slot]] = matches
        return counts
