"""A bounded cache of vectors for texts that come back.

Query hints repeat: a hook sends the same prompt prefix on every turn, agents
re-ask. Embedding one again costs a model run; looking it up costs a dict
access. Entries are keyed by model and text, so two models never share a
vector, and the cache is bounded in bytes, oldest use evicted first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""About 20,000 short queries' vectors; small beside the model itself."""

MAX_TEXT_CHARS = 8_192
"""Longer texts are not kept: one would push out hundreds of short ones."""

_ENTRY_OVERHEAD = 200
"""Bytes a cache entry costs beyond its text and vector (key tuple, dict slot)."""


class VectorCache:
    """Least-recently-used vectors (float32 bytes) by ``(model, text)``; thread-safe."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, model: str, text: str) -> bytes | None:
        key = (model, text)
        with self._lock:
            vector = self._entries.get(key)
            if vector is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return vector

    def put(self, model: str, text: str, vector: bytes) -> None:
        if len(text) > MAX_TEXT_CHARS:
            return
        cost = _cost(text, vector)
        if cost > self.max_bytes:
            return
        key = (model, text)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= _cost(text, old)
            self._entries[key] = vector
            self._bytes += cost
            while self._bytes > self.max_bytes:
                (_, evicted_text), evicted = self._entries.popitem(last=False)
                self._bytes -= _cost(evicted_text, evicted)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def _cost(text: str, vector: bytes) -> int:
    return len(text) + len(vector) + _ENTRY_OVERHEAD
