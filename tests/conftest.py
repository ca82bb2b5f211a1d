"""Shared fixtures: one real embedded FalkorDB server and one real Neo4j server
per test worker, one fresh graph per test, so tests are isolated and can run in
parallel.

Every test that takes ``store`` (or ``gm``, ``egm`` and what builds on them)
runs once per backend: ``[falkordb]`` on the embedded FalkorDB, ``[neo4j]`` on
the test Neo4j (``tests/neo4j_server.py``). A test that is about one backend
only says so with ``@pytest.mark.backends("falkordb")`` and why; so do the
surface suites (GraphQL, MCP, the client, the pages), whose subject is the
same on every backend and whose store work the store suites cover on both.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB
from hypothesis import HealthCheck, settings

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.settings import Settings
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests import neo4j_server as test_neo4j
from tests.neo4j_server import TestNeo4j

pytest_plugins = ["tests.stress"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Hypothesis times each example against the wall clock by default (a 200 ms
# deadline, a too-slow health check); on a busy machine that fails tests whose
# logic is right, so no property test here is timed.
settings.register_profile("graphmem", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("graphmem")

BACKENDS = ("falkordb", "neo4j")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "backends(*names): the backends a store test runs on (default: all), "
        "for a test about one backend's own machinery",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, in their collection order.

    xdist's work stealing hands each worker a contiguous share of the
    collection and an idle worker takes from the end of another's queue, so a
    test of a minute or more collected late runs alone while the other worker
    has nothing left: the suite then lasts as long as that test. Started first,
    the long tests are spread over the time in which many short ones remain to
    even the workers out. A stable sort: each module's tests stay together, so
    a module-scoped server is not started twice."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that needs a store runs on each backend its marker allows."""
    if "backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("backends")
        names = marker.args if marker else BACKENDS
        metafunc.parametrize("backend", names, indirect=True, scope="function")


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", "falkordb")


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[TestNeo4j]:
    """This worker's Neo4j. Without Java or Maven the Neo4j tests skip, naming what
    to install; under ``CI=true`` they must run, so that is a failure."""
    missing = test_neo4j.missing_tools()
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{missing}; CI must run them")
        pytest.skip(missing)
    # In memory where the machine has it: the tests commit thousands of small
    # transactions, and each one's fsync on disk costs more than the statement.
    shm = Path("/dev/shm")
    home = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-", dir=shm if shm.is_dir() else None))
    try:
        server = test_neo4j.start(home)
        yield server
        server.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def neo4j_settings(neo4j_server: TestNeo4j) -> Settings:
    return Settings(
        backend="neo4j",
        neo4j_uri=neo4j_server.bolt_uri,
        neo4j_user=neo4j_server.user,
        neo4j_password=neo4j_server.password,
    )


@pytest.fixture(scope="session")
def neo4j_env(neo4j_server: TestNeo4j) -> dict[str, str]:
    """The environment that points a graphmem process at this worker's Neo4j."""
    return {
        "GRAPHMEM_BACKEND": "neo4j",
        "GRAPHMEM_NEO4J_URI": neo4j_server.bolt_uri,
        "GRAPHMEM_NEO4J_USER": neo4j_server.user,
        "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password,
    }


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedFalkorDB]:
    """A real FalkorDB server, started the way graphmem starts it."""
    server = EmbeddedFalkorDB(tmp_path_factory.mktemp("falkordb"))
    server.start()
    yield server
    # Every client of this server belongs to this test worker, which is done.
    server.stop(force=True)


@pytest.fixture
def falkordb_store(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorStore]:
    """A FalkorDB store on a graph of its own, deleted after the test."""
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


@pytest.fixture(scope="session")
def neo4j_schema(neo4j_settings: Settings) -> None:
    """graphmem's indexes on this worker's Neo4j, created once: emptying the
    database between tests leaves them, and creating them again is a no-op."""
    from graphmem.store.neo4j import Neo4jStore

    store = Neo4jStore.connect(neo4j_settings)
    try:
        store.setup_schema()
    finally:
        store.close()


@pytest.fixture
def neo4j_store(neo4j_settings: Settings, neo4j_schema: None) -> Iterator[Store]:
    """A Neo4j store on an emptied database. Community Edition has one user
    database, hence a server per test worker."""
    from graphmem.store.neo4j import Neo4jStore

    store = Neo4jStore.connect(neo4j_settings)
    cypher(store, "MATCH (n) DETACH DELETE n")
    yield store
    store.close()


@pytest.fixture
def store(backend: str, request: pytest.FixtureRequest) -> Store:
    """A clean store of the backend under test."""
    return request.getfixturevalue(f"{backend}_store")


@pytest.fixture
def connect_again(store: Store, request: pytest.FixtureRequest) -> Iterator[Callable[[], Store]]:
    """Opens another connection to the test's graph, as a second graphmem
    process would (for races, locks and claims); each is closed after the test."""
    opened: list[Store] = []

    def connect() -> Store:
        other: Store
        if isinstance(store, FalkorStore):
            server: EmbeddedFalkorDB = request.getfixturevalue("falkordb_server")
            db = FalkorDB(unix_socket_path=str(server.socket_path), socket_timeout=30.0)
            other = FalkorStore(db, store.graph_name)
        else:
            from graphmem.store.neo4j import Neo4jStore

            other = Neo4jStore.connect(request.getfixturevalue("neo4j_settings"))
        opened.append(other)
        return other

    yield connect
    for other in opened:
        other.close()


def cypher(store: Store, text: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
    """Rows of a raw Cypher statement, as lists of values, on either backend: what
    tests use to look at (or tamper with) the graph with no graphmem code between."""
    if isinstance(store, FalkorStore):
        return store._graph.query(text, params or {}).result_set
    records, _, _ = store._driver.execute_query(  # type: ignore[attr-defined]
        text,
        params or {},
        database_=store._database,  # type: ignore[attr-defined]
    )
    return [list(record.values()) for record in records]


def graph_contents(store: Store) -> tuple[list[str], list[str]]:
    """Every node and edge of the store's graph (embeddings included), read with
    raw queries so no graphmem code stands between a test and what is stored."""
    nodes = cypher(store, "MATCH (n) RETURN labels(n), properties(n)")
    edges = cypher(
        store, "MATCH (a)-[r]->(b) RETURN type(r), properties(a), properties(b), properties(r)"
    )
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


@pytest.fixture
def graph_snapshot(store: Store) -> Callable[[], tuple[list[str], list[str]]]:
    """Everything in the test's graph, to show that a rejected call wrote nothing."""
    return lambda: graph_contents(store)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(start=1_800_000_000.0)


@pytest.fixture
def gm(store: Store, clock: ManualClock) -> GraphMem:
    return GraphMem(store, clock=clock)


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """One model per test worker: loading it takes seconds."""
    return MiniLMEmbedder()


@pytest.fixture
def egm(store: Store, clock: ManualClock, embedder: MiniLMEmbedder) -> GraphMem:
    """A store that embeds what it writes, with the real model."""
    return GraphMem(store, clock=clock, embedder=embedder)


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A per-test data directory, short and under /tmp on purpose: the embedded
    server's unix socket lives in it, and socket paths are length-limited."""
    path = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
