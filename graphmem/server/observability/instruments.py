"""Timing wrappers installed on one store and one embedder object.

Services hold the store they were built with, so timing every statement at
one point means wrapping that object's ``read`` and ``write`` rather than
editing each service. The wrapper is installed once per object and calls
every observer registered on it; it sits on every statement, so it does no
more than take two clock readings and loop over a tuple.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.services.embeddings import Embedder, Vector
from graphmem.store import Row, Store

StatementObserver = Callable[[str, str, float, bool], None]
"""Called with the statement name, ``read`` or ``write``, seconds taken, and
whether it succeeded."""
EmbeddingObserver = Callable[[int, float], None]
"""Called with the number of texts embedded and the seconds taken."""

_STATEMENTS = "_graphmem_statement_observers"
_EMBEDDINGS = "_graphmem_embedding_observers"


class _Observers:
    """Observers of one object; replaced as a whole, so a call in another thread
    iterates a tuple that never changes under it."""

    def __init__(self) -> None:
        self.items: tuple[Callable[..., None], ...] = ()

    def add(self, observer: Callable[..., None]) -> None:
        self.items = (*self.items, observer)


def observe_statements(store: Store, observer: StatementObserver) -> None:
    """Call ``observer`` after each statement ``store`` runs."""
    observers: _Observers | None = getattr(store, _STATEMENTS, None)
    if observers is None:
        observers = _Observers()
        store.read = _timed_statement(store.read, "read", observers)  # type: ignore[method-assign]
        store.write = _timed_statement(store.write, "write", observers)  # type: ignore[method-assign]
        setattr(store, _STATEMENTS, observers)
    observers.add(observer)


def _timed_statement(
    run: Callable[[str, Mapping[str, Any] | None], list[Row]], access: str, observers: _Observers
) -> Callable[..., list[Row]]:
    perf_counter = time.perf_counter

    def timed(name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        started = perf_counter()
        ok = False
        try:
            rows = run(name, params)
            ok = True
            return rows
        finally:
            seconds = perf_counter() - started
            for observe in observers.items:
                observe(name, access, seconds, ok)

    return timed


def observe_embeddings(embedder: Embedder, observer: EmbeddingObserver) -> None:
    """Call ``observer`` after each successful ``embed`` call."""
    observers: _Observers | None = getattr(embedder, _EMBEDDINGS, None)
    if observers is None:
        observers = _Observers()
        embed = embedder.embed

        def timed(texts: Sequence[str]) -> list[Vector]:
            started = time.perf_counter()
            vectors = embed(texts)
            seconds = time.perf_counter() - started
            for observe in observers.items:
                observe(len(texts), seconds)
            return vectors

        embedder.embed = timed  # type: ignore[method-assign]
        setattr(embedder, _EMBEDDINGS, observers)
    observers.add(observer)
