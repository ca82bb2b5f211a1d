"""The embedder retrieval uses: a model runtime behind a cache and a gatherer.

Loading a model takes a second or more, so it happens once per process and
runtime (every embedder of the process shares it), on first use or on
``warm``. Calls of a few texts (queries) are gathered across threads into one
model call; larger ones (ingest batches) go to the runtime directly, which
spreads them over every core it was given.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import numpy as np

from graphmem.services.embeddings.base import DIMENSION, Vector
from graphmem.services.embeddings.cache import VectorCache
from graphmem.services.embeddings.gather import DEFAULT_MAX_TEXTS, Gatherer

MODEL_NAME = "all-MiniLM-L6-v2"

WARM_TEXT = "graphmem warms its embedding model"

CACHE = VectorCache()
"""The process's vectors by model and text, shared by every embedder."""


class Runtime(Protocol):
    """A loaded model: texts in, float32 unit vectors out (one row each)."""

    def embed(self, texts: list[str]) -> np.ndarray: ...


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_runtimes: dict[str, Runtime] = {}
_gatherers: dict[str, Gatherer] = {}
_warmed: set[str] = set()
_lock = threading.Lock()

T = TypeVar("T")


class ModelEmbedder(ABC):
    """An embedder over one ``Runtime``; subclasses say which and how to load it."""

    name = MODEL_NAME
    dimension = DIMENSION
    cache: VectorCache = CACHE

    def __init__(self, *, threads: int | None = None) -> None:
        self.threads = threads or available_cores()
        """Cores one model call may use; the runtime is built with them once."""

    @property
    @abstractmethod
    def key(self) -> str:
        """Names the model variant and how it runs: one loaded runtime per key."""

    @property
    @abstractmethod
    def cache_key(self) -> str:
        """The model variant alone, for the cache: its vectors do not depend on threads."""

    @abstractmethod
    def _load(self) -> Runtime:
        """Load the model (seconds): called once per key and process."""

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        found = [self.cache.get(self.cache_key, text) for text in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, found, strict=True) if v is None))
        if missing:
            small = len(missing) <= DEFAULT_MAX_TEXTS
            rows = self._gatherer().embed(missing) if small else self._runtime().embed(missing)
            computed = {text: row.tobytes() for text, row in zip(missing, rows, strict=True)}
            _warmed.add(self.key)  # the model has embedded: ready from now on
            if small:  # query-sized calls: bulk ingest would only push them out
                for text, vector in computed.items():
                    self.cache.put(self.cache_key, text, vector)
            found = [v if v is not None else computed[t] for t, v in zip(texts, found, strict=True)]
        return [array("f", vector) for vector in found if vector is not None]

    def warm(self) -> None:
        self._runtime().embed([WARM_TEXT])
        _warmed.add(self.key)

    def ready(self) -> bool:
        return self.key in _warmed

    def _runtime(self) -> Runtime:
        return _shared(_runtimes, self.key, self._load)

    def _gatherer(self) -> Gatherer:
        runtime = self._runtime()
        return _shared(_gatherers, self.key, lambda: Gatherer(runtime.embed))


def _shared(registry: dict[str, T], key: str, make: Callable[[], T]) -> T:
    found = registry.get(key)
    if found is None:
        with _lock:
            found = registry.get(key)
            if found is None:
                found = registry[key] = make()
    return found
