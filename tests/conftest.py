"""Shared fixtures: one real embedded FalkorDB server per test worker, one
fresh graph per test, so tests are isolated and can run in parallel."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.clock import ManualClock
from graphmem.embeddings import MiniLMEmbedder
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedFalkorDB]:
    """A real FalkorDB server, started the way graphmem starts it."""
    server = EmbeddedFalkorDB(tmp_path_factory.mktemp("falkordb"))
    server.start()
    yield server
    # Every client of this server belongs to this test worker, which is done.
    server.stop(force=True)


@pytest.fixture
def store(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorStore]:
    """A store on a graph of its own, deleted after the test."""
    db = FalkorDB(
        unix_socket_path=str(falkordb_server.socket_path),
        socket_timeout=30.0,
        client_name=falkordb_server.client_name,
    )
    store = FalkorStore(db, f"test-{uuid.uuid4().hex[:12]}")
    store.setup_schema()
    yield store
    store.drop()
    db.close()


def graph_contents(store: FalkorStore) -> tuple[list[str], list[str]]:
    """Every node and edge of the store's graph (embeddings included), read with
    raw queries so no graphmem code stands between a test and what is stored."""
    nodes = store._graph.ro_query("MATCH (n) RETURN labels(n), properties(n)").result_set
    edges = store._graph.ro_query(
        "MATCH (a)-[r]->(b) RETURN type(r), properties(a), properties(b), properties(r)"
    ).result_set
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


@pytest.fixture
def graph_snapshot(store: FalkorStore) -> Callable[[], tuple[list[str], list[str]]]:
    """Everything in the test's graph, to show that a rejected call wrote nothing."""
    return lambda: graph_contents(store)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(start=1_800_000_000.0)


@pytest.fixture
def gm(store: FalkorStore, clock: ManualClock) -> GraphMem:
    return GraphMem(store, clock=clock)


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """One model per test worker: loading it takes seconds."""
    return MiniLMEmbedder()


@pytest.fixture
def egm(store: FalkorStore, clock: ManualClock, embedder: MiniLMEmbedder) -> GraphMem:
    """A store that embeds what it writes, with the real model."""
    return GraphMem(store, clock=clock, embedder=embedder)


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A per-test data directory, short and under /tmp on purpose: the embedded
    server's unix socket lives in it, and socket paths are length-limited."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
