"""Choosing a store from settings, the only place that knows the backends."""

from __future__ import annotations

from graphmem.domain.errors import MissingExtraError
from graphmem.settings import Settings, env_name
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore
from graphmem.store.migrations import text_fields


def open_store(settings: Settings) -> Store:
    store: Store
    if settings.store.backend == "neo4j":
        try:
            from graphmem.store.neo4j import Neo4jStore
        except ImportError as exc:  # the driver is an optional extra
            feature = f"{env_name('backend')}=neo4j"
            raise MissingExtraError(feature, "the neo4j driver", "neo4j") from exc
        store = Neo4jStore.connect(settings)
    elif settings.store.falkordb_url:
        store = FalkorStore.connect(
            settings.store.falkordb_url,
            settings.store.graph,
            timeout_ms=settings.store.query_timeout_ms,
        )
    else:
        store = FalkorStore.embedded(
            settings.store.data_dir,
            settings.store.graph,
            durability=settings.store.durability,
            timeout_ms=settings.store.query_timeout_ms,
        )
    try:
        store.setup_schema()
        text_fields(store)
    except BaseException:
        store.close()
        raise
    return store
