"""No core operation makes more Cypher round trips per item on a backend than
on the embedded FalkorDB (benchmarks/roundtrips.py prints the figures)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from falkordb import FalkorDB

from benchmarks.roundtrips import BATCH, CountingStore, count
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore


@pytest.fixture
def reference(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorStore]:
    db = FalkorDB(unix_socket_path=str(falkordb_server.socket_path), socket_timeout=30.0)
    store = FalkorStore(db, f"reference-{uuid.uuid4().hex[:12]}")
    store.setup_schema()
    yield store
    store.drop()
    db.close()


@pytest.mark.slow
def test_no_operation_costs_more_round_trips_than_on_falkordb(store: Store, reference: FalkorStore):
    def on(target: Store) -> dict[str, tuple[float, str]]:
        gm = GraphMem(CountingStore(target), clock=ManualClock(1_800_000_000.0))
        return {c.operation: (c.per_item, c.statements) for c in count(gm, BATCH)}

    falkordb, here = on(reference), on(store)
    assert set(here) == set(falkordb)
    for operation, (per_item, statements) in here.items():
        assert per_item <= falkordb[operation][0], (operation, statements, falkordb[operation][1])
    assert all(per_item > 0 for per_item, _ in here.values())
