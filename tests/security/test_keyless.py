"""No request without a key executes anything where keys are required.

Every spelling a client or an attacker could use to smuggle an operation past the
gate (percent-encoded or upper-case parameter names, duplicated parameters, form
bodies, HEAD and OPTIONS, any Accept header, a websocket that never sends a key)
is sent over real HTTP against a real server. Each one either gets the static
GraphiQL page, a refusal, or nothing: never data, never a write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from graphmem.mcp.http import MCP_PATH, create_http_app
from graphmem.settings import Settings
from tests.integration.conftest import serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

SECRET = "beta's secret: the vault code is 4711"
READ = '{ memories(projectId: "beta") { edges { node { content } } } }'
WRITE = 'mutation { remember(input: {content: "planted"}, projectId: "beta") { created } }'

ACCEPTS = [
    None,
    "text/html",
    "TEXT/HTML",
    "text/html;q=0.9, application/json",
    "application/json",
    "*/*",
    "application/graphql-response+json",
    "multipart/mixed",
]


def query_strings(document: str) -> list[str]:
    """Every way to name the ``query`` parameter that some decoder might accept."""
    encoded = quote(document, safe="")
    return [
        f"query={encoded}",
        f"%71uery={encoded}",
        f"%71%75%65%72%79={encoded}",
        f"q%75ery={encoded}",
        f"QUERY={encoded}",
        f"Query={encoded}",
        f"query=&query={encoded}",
        f"query={encoded}&query=",
        f"x=1&query={encoded}",
        f"query={encoded}&operationName=",
        f"variables=%7B%7D&%71uery={encoded}",
        f"query%00={encoded}",
        f"query={quote(encoded, safe='')}",
        f"query={encoded}".replace("%20", "+"),
    ]


def form_bodies(document: str) -> list[tuple[str, bytes]]:
    encoded = quote(document, safe="")
    boundary = "gmboundary"
    multipart = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="query"\r\n\r\n'
        f"{document}\r\n--{boundary}--\r\n"
    ).encode()
    return [
        ("application/x-www-form-urlencoded", f"query={encoded}".encode()),
        ("application/x-www-form-urlencoded", f"%71uery={encoded}".encode()),
        (f"multipart/form-data; boundary={boundary}", multipart),
        ("application/json", json.dumps({"query": document}).encode()),
        ("application/graphql", document.encode()),
        ("text/plain", json.dumps({"query": document}).encode()),
    ]


class Probe:
    """Sends keyless requests and counts any that executed something."""

    def __init__(self, gm: GraphMem) -> None:
        self.gm = gm
        self.tried = 0
        self.executed: list[str] = []

    def check(self, label: str, response: httpx.Response) -> None:
        self.tried += 1
        body = response.text
        leaked = SECRET in body or '"memories"' in body or '"remember"' in body
        if leaked or (response.status_code == 200 and '"data"' in body):
            self.executed.append(f"{label}: {response.status_code} {body[:120]!r}")

    def assert_nothing_written(self) -> None:
        contents = [m.content for m in self.gm.list(project_id="beta").items]
        assert contents == [SECRET], f"a keyless request wrote: {contents}"


@pytest.fixture
def probe(gm: GraphMem) -> Probe:
    gm.remember({"content": SECRET}, project_id="beta")
    return Probe(gm)


@contextmanager
def graphql_server(gm: GraphMem, **overrides: Any) -> Iterator[httpx.Client]:
    settings = Settings.model_validate({"auth": "required", **overrides})
    with serve(create_app(gm, settings)) as http:
        yield http


def probe_http(http: httpx.Client, probe: Probe, path: str) -> None:
    for document in (READ, WRITE):
        for qs in query_strings(document):
            for accept in ACCEPTS:
                headers = {"Accept": accept} if accept else {}
                for method in ("GET", "HEAD", "OPTIONS", "POST", "DELETE"):
                    response = http.request(method, f"{path}?{qs}", headers=headers)
                    probe.check(f"{method} {path}?{qs} accept={accept}", response)
        for content_type, body in form_bodies(document):
            for accept in ACCEPTS:
                headers = {"Content-Type": content_type, **({"Accept": accept} if accept else {})}
                for method in ("POST", "PUT", "PATCH", "GET"):
                    response = http.request(method, path, content=body, headers=headers)
                    probe.check(f"{method} {path} body={content_type} accept={accept}", response)


@pytest.mark.parametrize("mode", ["development", "production"])
def test_no_keyless_request_reaches_graphql(gm: GraphMem, probe: Probe, mode: str) -> None:
    with graphql_server(gm, mode=mode) as http:
        probe_http(http, probe, "/graphql")
        probe_http(http, probe, "/graphql/")
        probe_http(http, probe, "/metrics")
    print(f"\nkeyless variants tried ({mode}): {probe.tried}, executed: {len(probe.executed)}")
    assert probe.tried > 1000
    assert probe.executed == []
    probe.assert_nothing_written()


def test_a_browser_without_a_key_gets_only_the_static_page(gm: GraphMem, probe: Probe) -> None:
    with graphql_server(gm) as http:
        page = http.get(f"/graphql?%71uery={quote(READ)}", headers={"Accept": "text/html"})
        assert page.status_code == 200
        assert "graphiql" in page.text.lower() and SECRET not in page.text
        plain = http.get("/graphql", headers={"Accept": "text/html"})
        assert plain.text == page.text
        refused = http.get(f"/graphql?query={quote(READ)}")
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    with graphql_server(gm, mode="production") as http:
        page = http.get("/graphql", headers={"Accept": "text/html"})
        assert page.status_code == 401
        assert "graphiql" not in page.text.lower()


def ws_url(http: httpx.Client) -> str:
    return str(http.base_url).replace("http://", "ws://", 1).rstrip("/") + "/graphql"


def test_a_websocket_without_a_key_runs_nothing(gm: GraphMem, probe: Probe) -> None:
    subscribe = {
        "id": "1",
        "type": "subscribe",
        "payload": {"query": 'subscription { memoryEvents(projectId: "beta") { kind } }'},
    }
    initial_payloads: list[dict[str, Any] | None] = [
        None,
        {},
        {"authorization": ""},
        {"Authorization": "Basic abc"},
        {"authorization": "Bearer gmk_wrong"},
    ]
    with graphql_server(gm) as http:
        for payload in initial_payloads:
            probe.tried += 1
            try:
                with connect(
                    ws_url(http), subprotocols=["graphql-transport-ws"], open_timeout=10
                ) as ws:
                    init: dict[str, Any] = {"type": "connection_init"}
                    if payload is not None:
                        init["payload"] = payload
                    answers = []
                    try:
                        # The server may refuse the init before the subscribe is sent.
                        ws.send(json.dumps(init))
                        ws.send(json.dumps(subscribe))
                        while True:
                            answers.append(json.loads(ws.recv(timeout=2)))
                    except (ConnectionClosed, TimeoutError):
                        pass
            except InvalidStatus:
                continue
            kinds = {a.get("type") for a in answers}
            assert "connection_ack" not in kinds, (payload, answers)
            assert "next" not in kinds, (payload, answers)
        # Skipping connection_init entirely.
        probe.tried += 1
        with connect(ws_url(http), subprotocols=["graphql-transport-ws"], open_timeout=10) as ws:
            ws.send(json.dumps(subscribe))
            with pytest.raises((ConnectionClosed, TimeoutError)):
                answer = json.loads(ws.recv(timeout=2))
                assert answer.get("type") not in ("next", "connection_ack"), answer
                ws.recv(timeout=2)
    probe.assert_nothing_written()


def test_no_keyless_request_reaches_mcp(gm: GraphMem, probe: Probe) -> None:
    settings = Settings(host="127.0.0.1", auth="required", embedder="none")
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "vault code", "project_id": "beta"}},
    }
    with serve(create_http_app(gm, settings)) as http:
        for accept in ACCEPTS:
            headers = {"Content-Type": "application/json"}
            if accept:
                headers["Accept"] = accept
            for method in ("POST", "GET", "HEAD", "OPTIONS", "DELETE"):
                for path in (MCP_PATH, MCP_PATH + "/", f"{MCP_PATH}?%71uery={quote(READ)}"):
                    response = http.request(method, path, json=call, headers=headers)
                    probe.check(f"{method} {path} accept={accept}", response)
                    assert response.status_code in (401, 404, 405, 307), (method, path, accept)
    assert probe.executed == []
    probe.assert_nothing_written()
