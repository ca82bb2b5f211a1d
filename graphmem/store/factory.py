"""Choosing a store from settings, the only place that knows the backends."""

from __future__ import annotations

from graphmem.config import Settings
from graphmem.store import Store
from graphmem.store.falkordb import FalkorStore


def open_store(settings: Settings) -> Store:
    if settings.falkordb_url:
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
    store.setup_schema()
    return store
