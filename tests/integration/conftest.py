"""A real uvicorn server on a free local port, talked to over HTTP; a second
Neo4j to move projects into; a store whose database refuses graphmem's writes."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from falkordb import FalkorDB
from starlette.types import ASGIApp
from typer.testing import CliRunner, Result

from graphmem.api import GraphMem
from graphmem.cli import app as cli_app
from graphmem.graphql.app import create_app
from graphmem.server import serving
from graphmem.settings import Settings
from graphmem.store import Row, Store
from graphmem.store.falkordb import FalkorStore
from tests import neo4j_server as test_neo4j
from tests.conftest import cypher


class GraphQLClient:
    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def execute(self, query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The whole response body, errors included."""
        response = self.http.post("/graphql", json={"query": query, "variables": variables or {}})
        assert response.headers["content-type"].startswith("application/json"), response.text
        return response.json()

    def data(self, query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The data of a response that must have no errors."""
        body = self.execute(query, variables)
        assert "errors" not in body, body
        return body["data"]

    def error(self, query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The only error of a response that must fail."""
        body = self.execute(query, variables)
        assert len(body.get("errors", [])) == 1, body
        return body["errors"][0]


@contextmanager
def serve(app: ASGIApp) -> Iterator[httpx.Client]:
    """Run ``app`` under uvicorn in a thread until the block ends."""
    with serving.in_thread(app) as url, httpx.Client(base_url=url, timeout=30.0) as http:
        yield http


@pytest.fixture
def graphql_http(gm: GraphMem) -> Iterator[httpx.Client]:
    with serve(create_app(gm)) as client:
        yield client


@pytest.fixture
def gql(graphql_http: httpx.Client) -> GraphQLClient:
    return GraphQLClient(graphql_http)


@pytest.fixture
def store_reads(gm: GraphMem, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Reads per statement from here on (the server shares ``gm``, and every
    service of it the one store, whose reads are counted)."""
    reads: Counter[str] = Counter()
    read = gm.store.read

    def counting(name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        reads[name] += 1
        return read(name, params)

    monkeypatch.setattr(gm.store, "read", counting)
    return reads


@pytest.fixture(scope="session")
def second_neo4j(neo4j_server: test_neo4j.TestNeo4j) -> Iterator[Settings]:
    """A second Neo4j for this test worker, started by the first ``[neo4j]`` test
    that moves a project: the project goes into an empty database beside the one
    it left, and Community Edition has one user database per server. Like the
    first (``neo4j_server``), it lives in memory where the machine has it. Its
    indexes are created once; ``store_beside`` empties it for each test."""
    from graphmem.store.neo4j import Neo4jStore

    shm = Path("/dev/shm")
    home = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-", dir=shm if shm.is_dir() else None))
    try:
        server = test_neo4j.start(home, heap="512m")
        settings = Settings(
            backend="neo4j",
            neo4j_uri=server.bolt_uri,
            neo4j_user=server.user,
            neo4j_password=server.password,
        )
        try:
            schema = Neo4jStore.connect(settings)
            try:
                schema.setup_schema()
            finally:
                schema.close()
            yield settings
        finally:
            server.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def refusing_store(backend: str, request: pytest.FixtureRequest) -> Iterator[tuple[Store, str]]:
    """A store whose database refuses graphmem's writes with an error graphmem
    does not expect, and a word of the database's message that names the cause.
    On FalkorDB a key holds a plain string where the graph should be; on Neo4j
    a unique constraint (dropped after the test) refuses every new memory."""
    if backend == "falkordb":
        server = request.getfixturevalue("falkordb_server")
        key = f"not-a-graph-{uuid.uuid4().hex[:12]}"
        with redis.Redis(unix_socket_path=str(server.socket_path)) as raw:
            raw.set(key, "plain string")
        db = FalkorDB(unix_socket_path=str(server.socket_path), socket_timeout=5.0)
        try:
            yield FalkorStore(db, key), "WRONGTYPE"
        finally:
            db.connection.delete(key)
            db.close()
        return
    store = request.getfixturevalue("neo4j_store")
    cypher(store, "CREATE (:Memory {id: 'in-the-way', source: 'agent'})")
    cypher(store, "CREATE CONSTRAINT test_refusing FOR (m:Memory) REQUIRE m.source IS UNIQUE")
    try:
        yield store, "ConstraintValidationFailed"
    finally:
        cypher(store, "DROP CONSTRAINT test_refusing IF EXISTS")


Rejected = Callable[[str, Mapping[str, Any], str, str | None], dict[str, Any]]


@pytest.fixture
def rejected(gql: GraphQLClient, graph_snapshot: Callable[[], Any]) -> Rejected:
    """Send a document that must fail with one error of ``code`` naming ``field``,
    return nothing, and leave the graph exactly as it was; returns the error."""

    def check(
        document: str, variables: Mapping[str, Any], code: str, field: str | None
    ) -> dict[str, Any]:
        before = graph_snapshot()
        body = gql.execute(document, variables)
        assert len(body.get("errors", [])) == 1, body
        error = body["errors"][0]
        assert error["extensions"].get("code") == code, error
        assert error["extensions"].get("field") == field, error
        if field is not None:
            assert field in error["message"], error
        assert not any((body.get("data") or {}).values()), body
        assert graph_snapshot() == before
        return error

    return check


def run_cli(
    data_dir: Path,
    *args: str,
    embedder: str = "none",
    input: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Result:
    """The CLI in this process on its own data directory, blind to the caller's
    own ``GRAPHMEM_`` settings; an exception other than an exit fails the test."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GRAPHMEM_")}
    given = {"GRAPHMEM_DATA_DIR": str(data_dir), "GRAPHMEM_EMBEDDER": embedder, **(env or {})}
    result = CliRunner().invoke(cli_app, list(args), env={**unset, **given}, input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result
