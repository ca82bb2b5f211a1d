"""A real uvicorn server on a free local port, talked to over HTTP."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.types import ASGIApp
from typer.testing import CliRunner, Result

from graphmem.api import GraphMem
from graphmem.cli import app as cli_app
from graphmem.graphql.app import create_app
from graphmem.store import Row


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
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started or not thread.is_alive():
                break
            time.sleep(0.01)
        assert server.started, "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30.0) as http:
            yield http
    finally:
        server.should_exit = True
        thread.join(timeout=10)


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
