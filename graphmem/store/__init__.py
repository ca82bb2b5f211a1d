"""The store port: run a named Cypher statement with parameters.

Services depend on this protocol only, so the backend (embedded FalkorDB by
default, Neo4j in production) is a configuration choice. Both adapters return
rows in one shape; what else differs between backends is the store's
``dialect``, and a vector index that may hide vectors is asked through
``knn.nearest``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

from graphmem.store.dialect import Dialect

Row = dict[str, Any]

INDEX_WAIT = 30.0
"""Seconds ``setup_schema`` waits for the indexes it created to answer queries."""

log = logging.getLogger(__name__)


class Store(Protocol):
    dialect: Dialect
    """Which statement files run, and what else differs between backends."""

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a read-only statement."""
        ...

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a statement that may write; it is atomic on its own."""
        ...

    def setup_schema(self) -> None:
        """Create indexes and constraints; safe to run at every start."""
        ...

    def close(self) -> None: ...


def await_indexes(store: Store, timeout: float = INDEX_WAIT) -> None:
    """Wait until every index answers queries (``indexes_ready``). Both backends
    build an index in the background, and a search that arrives first fails
    rather than finding nothing. Past ``timeout`` the store is used anyway, and
    the indexes still building are logged."""
    deadline = time.monotonic() + timeout
    while True:
        building = indexes_building(store)
        if not building:
            return
        if time.monotonic() >= deadline:
            log.warning("indexes still building after %.0f s: %s", timeout, ", ".join(building))
            return
        time.sleep(0.02)


def indexes_building(store: Store) -> list[str]:
    """The labels whose indexes do not answer queries yet: after a restart the
    database rebuilds them from its files, and readiness says "recovering"."""
    return sorted({row["label"] for row in store.read("indexes_ready") if not row["ready"]})
