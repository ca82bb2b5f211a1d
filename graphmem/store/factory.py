"""Choosing a store from settings, the only place that knows the backends."""

from __future__ import annotations

from graphmem.domain.config import Settings
from graphmem.domain.errors import MissingExtraError
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore
from graphmem.store.migrations import text_scopes


def open_store(settings: Settings) -> Store:
    store: Store
    if settings.backend == "neo4j":
        try:
            from graphmem.store.neo4j import Neo4jStore
        except ImportError as exc:  # the driver is an optional extra
            raise MissingExtraError("GRAPHMEM_BACKEND=neo4j", "the neo4j driver", "neo4j") from exc
        store = Neo4jStore.connect(settings)
    elif settings.falkordb_url:
        store = FalkorStore.connect(
            settings.falkordb_url, settings.graph, timeout_ms=settings.query_timeout_ms
        )
    else:
        store = FalkorStore.embedded(
            settings.data_dir,
            settings.graph,
            durability=settings.durability,
            timeout_ms=settings.query_timeout_ms,
        )
    try:
        store.setup_schema()
        text_scopes(store)
    except BaseException:
        store.close()
        raise
    return store
