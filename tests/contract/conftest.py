"""The backends the contract suite runs on, each behind the same ``store``
fixture, so every test here is written once and runs on all of them:

- ``falkordb``: the embedded FalkorDB through the FalkorDB adapter (always);
- ``bolt``: the Neo4j adapter (driver sessions, managed transactions,
  retries, result mapping) over real Bolt against FalkorDB, with the FalkorDB
  dialect (always);
- ``neo4j``: the Neo4j adapter and dialect against the server that
  ``GRAPHMEM_NEO4J_URI`` names (``docker compose up neo4j``), skipped when it
  is unset. That database is emptied before every test: never point it at
  data you want to keep.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from falkordb import FalkorDB
from neo4j import GraphDatabase

from graphmem.config import Settings
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from graphmem.store.neo4j import Neo4jStore
from tests.contract.bolt import BOLT_GRAPH, BoltFalkorDB

BACKENDS = ("falkordb", "bolt", "neo4j")
NEO4J_SKIP = "no Neo4j: GRAPHMEM_NEO4J_URI is not set (docs/neo4j.md shows how to run on Neo4j)"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store(backend: str, request: pytest.FixtureRequest) -> Store:
    """A clean store of the backend under test (the root ``gm`` fixture wraps it)."""
    return request.getfixturevalue(f"{backend.replace('-', '_')}_store")


@pytest.fixture
def falkordb_store(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorStore]:
    db = FalkorDB(unix_socket_path=str(falkordb_server.socket_path), socket_timeout=30.0)
    store = FalkorStore(db, f"contract-{uuid.uuid4().hex[:12]}")
    store.setup_schema()
    yield store
    store.drop()
    db.close()


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoltFalkorDB]:
    server = BoltFalkorDB(Path(tmp_path_factory.mktemp("bolt")))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def bolt_shared_store(bolt_server: BoltFalkorDB) -> Iterator[Neo4jStore]:
    """One driver for the whole run: FalkorDB's Bolt listener stops accepting
    connections after a client says GOODBYE, which closing a driver does."""
    driver = GraphDatabase.driver(
        bolt_server.uri, auth=None, connection_timeout=5, max_transaction_retry_time=10
    )
    store = Neo4jStore(driver, database=None, dialect="falkordb")
    store.setup_schema()  # once: FalkorDB's index DDL has no IF NOT EXISTS
    yield store
    store.close()


@pytest.fixture
def bolt_store(bolt_server: BoltFalkorDB, bolt_shared_store: Neo4jStore) -> Neo4jStore:
    """Bolt reaches one graph only, so each test starts by emptying it (its indexes stay)."""
    if bolt_server.ensure_running():
        bolt_shared_store.setup_schema()
    client = bolt_server.client()
    try:
        client.execute_command("GRAPH.QUERY", BOLT_GRAPH, "MATCH (n) DETACH DELETE n")
    finally:
        client.close()
    return bolt_shared_store


@pytest.fixture(scope="session")
def neo4j_settings() -> Settings:
    if not os.environ.get("GRAPHMEM_NEO4J_URI"):
        pytest.skip(NEO4J_SKIP)
    return Settings(backend="neo4j")


@pytest.fixture(scope="session")
def neo4j_shared_store(neo4j_settings: Settings) -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(neo4j_settings)
    store.setup_schema()
    yield store
    store.close()


@pytest.fixture
def neo4j_store(neo4j_settings: Settings, neo4j_shared_store: Neo4jStore) -> Neo4jStore:
    password = neo4j_settings.neo4j_password
    auth = (neo4j_settings.neo4j_user, password.get_secret_value()) if password else None
    with GraphDatabase.driver(str(neo4j_settings.neo4j_uri), auth=auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n", database_=neo4j_settings.neo4j_database)
    return neo4j_shared_store
