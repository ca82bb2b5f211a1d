"""What knowledgeContext reads and writes of use: the scope's highest access
count (its frequency's denominator) and a retrieval counted on what it returns."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.domain.models import Memory
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.store import Store
from graphmem.store.queries import retrieval as uses


class AccessCounts:
    """One store's access counts; ``config`` is read at each call."""

    def __init__(self, store: Store, config: Callable[[], RetrievalConfig]) -> None:
        self.store = store
        self._config = config
        self._max_access: dict[tuple[str, str | None], tuple[int, float]] = {}
        self._lock = threading.Lock()

    def max_access(self, project_id: str, session_id: str | None) -> int:
        """The highest access count in the session (or the project, with none),
        reused for ``max_access_cache_seconds``: finding it reads every memory
        of the scope."""
        key = (project_id, session_id)
        ttl = self._config().max_access_cache_seconds
        with self._lock:
            cached = self._max_access.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        value = uses.max_access(self.store, project_id, session_id)
        if ttl > 0:
            with self._lock:
                self._max_access[key] = (value, time.monotonic() + ttl)
        return value

    def record_retrievals(
        self,
        memories: Sequence[Memory],
        project_id: str,
        now: float,
        *,
        delivery: Mapping[str, Any] | None = None,
    ) -> None:
        """Count a retrieval on each memory returned (accesses, use, stay as they
        are), and put ``delivery`` on record in the same write: on Neo4j each
        write transaction costs milliseconds whatever it does."""
        counts = {"ids": [m.id for m in memories], "project_id": project_id, "now": now}
        if delivery is not None and memories:
            uses.record_context(self.store, delivery, counts)
        elif delivery is not None:
            uses.record_delivery(self.store, delivery)
        elif memories:
            uses.record_retrievals(self.store, counts)
