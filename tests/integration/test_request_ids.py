"""Request ids over a real server: taken or made, returned, in every log line of
the request, and in the message of an error the client cannot be shown."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Route

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from graphmem.server.observability.logs import JsonFormatter, RequestIdFilter
from graphmem.server.observability.metrics import Metrics
from graphmem.server.observability.middleware import RequestMiddleware
from graphmem.settings import Settings
from graphmem.store import Store
from tests.integration.conftest import serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

GENERATED = re.compile(r"[0-9a-f]{32}")


class LogLines:
    def __init__(self, buffer: io.StringIO) -> None:
        self._buffer = buffer

    def all(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self._buffer.getvalue().splitlines()]

    def of(self, logger: str) -> list[dict[str, Any]]:
        return [line for line in self.all() if line["logger"] == logger]

    def access(self, **wanted: Any) -> list[dict[str, Any]]:
        """The access lines with these fields, waited for: the server writes one
        after the response has gone, so it may lag the client by a moment."""
        deadline = time.monotonic() + 5.0
        while True:
            found = [
                line
                for line in self.of("graphmem.access")
                if all(line.get(key) == value for key, value in wanted.items())
            ]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.01)


@pytest.fixture
def logs() -> Iterator[LogLines]:
    """The process's log records at INFO and above, as the server's JSON lines."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield LogLines(buffer)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.fixture
def http(gm: GraphMem) -> Iterator[httpx.Client]:
    with serve(create_app(gm)) as client:
        yield client


def test_a_sane_incoming_id_is_kept_and_returned(http: httpx.Client, logs: LogLines) -> None:
    response = http.post(
        "/graphql",
        json={"query": 'mutation Note { remember(input: {content: "x"}) { created } }'},
        headers={"X-Request-ID": "trace-42.a_b"},
    )

    assert response.headers["x-request-id"] == "trace-42.a_b"
    (access,) = logs.access(path="/graphql")
    assert access["request_id"] == "trace-42.a_b"
    assert (access["method"], access["status"], access["operation"]) == ("POST", 200, "Note")
    assert access["operation_type"] == "mutation"
    assert access["duration_ms"] > 0
    assert access["level"] == "INFO" and access["message"].startswith("POST /graphql 200 ")


@pytest.mark.parametrize(
    "incoming",
    ["x" * 65, "has space", 'quote"d', "{json}", "ünïcode", ""],
    ids=["too-long", "space", "quote", "braces", "non-ascii", "empty"],
)
def test_an_unsafe_incoming_id_is_replaced(http: httpx.Client, incoming: str) -> None:
    headers = {"X-Request-ID": incoming.encode()}

    returned = http.get("/healthz", headers=headers).headers["x-request-id"]

    assert GENERATED.fullmatch(returned)


def test_every_response_gets_its_own_id(http: httpx.Client) -> None:
    ids = {http.get("/healthz").headers["x-request-id"] for _ in range(5)}
    ids.add(http.get("/metrics").headers["x-request-id"])
    ids.add(http.get("/nowhere").headers["x-request-id"])

    assert len(ids) == 7 and all(GENERATED.fullmatch(i) for i in ids)


def test_a_request_the_gate_refuses_still_has_an_id(gm: GraphMem, logs: LogLines) -> None:
    with serve(create_app(gm, Settings(auth="required"))) as http:
        response = http.post("/graphql", json={"query": "{ __typename }"})

    assert response.status_code == 401
    request_id = response.headers["x-request-id"]
    (access,) = logs.access(request_id=request_id)
    assert access["status"] == 401


def test_an_internal_error_names_its_request_id_and_the_log_holds_the_cause(
    refusing_store: tuple[Store, str], logs: LogLines
) -> None:
    # The database rejects the write with an error graphmem does not expect.
    store, cause = refusing_store
    with serve(create_app(GraphMem(store))) as http:
        response = http.post(
            "/graphql",
            json={"query": 'mutation { remember(input: {content: "x"}) { created } }'},
            headers={"X-Request-ID": "incident-7"},
        )

    body = response.json()
    assert response.headers["x-request-id"] == "incident-7"
    (error,) = body["errors"]
    assert error["message"] == "Internal server error (request id incident-7)"
    assert error["extensions"] == {"code": "INTERNAL"}
    assert cause not in response.text
    causes = [line for line in logs.all() if cause in line.get("exception", "")]
    assert causes, logs.all()
    assert all(line["request_id"] == "incident-7" for line in causes)
    assert all(line["level"] == "ERROR" for line in causes)
    (access,) = logs.access(request_id="incident-7")
    assert access["operation"] == "remember" and access["status"] == 200


def test_an_unhandled_failure_becomes_a_500_naming_the_request(logs: LogLines) -> None:
    """A route that raises is a bug no GraphQL masking sees: the middleware
    answers for it, with the id, and logs the traceback under that id."""

    def broken(_: Request) -> None:
        raise RuntimeError("secret internal detail")

    metrics = Metrics()
    app = Starlette(
        routes=[Route("/broken", broken)],
        middleware=[Middleware(RequestMiddleware, metrics=metrics)],
    )
    with serve(app) as http:
        response = http.get("/broken", headers={"X-Request-ID": "crash-1"})

    assert response.status_code == 500
    assert response.text == "Internal server error (request id crash-1)"
    assert response.headers["x-request-id"] == "crash-1"
    (logged,) = [
        line for line in logs.all() if "secret internal detail" in line.get("exception", "")
    ]
    assert logged["request_id"] == "crash-1" and logged["level"] == "ERROR"
    (access,) = logs.access()
    assert (access["status"], access["request_id"]) == (500, "crash-1")
    counted = metrics.registry.get_sample_value(
        "graphmem_http_requests_total", {"method": "GET", "path": "/broken", "status": "500"}
    )
    assert counted == 1
