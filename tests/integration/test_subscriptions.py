"""Subscriptions over graphql-transport-ws against a real uvicorn server: a real
websocket client subscribes, real writes over HTTP (or the Python API on the
same instance) produce the events, and each project sees only its own."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.graphql.app import create_app
from graphmem.services.events import Topic
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

PROTOCOL = "graphql-transport-ws"
S = "thread-1"
TIMEOUT = 10.0
"""Seconds any one message may take to arrive."""

EVENT = "memoryId projectId kind at fromTier toTier missed memory { id content tier status }"
PROMOTED = f"subscription($p: ID) {{ memoryPromoted(projectId: $p) {{ {EVENT} }} }}"
CHANGED = f"subscription($p: ID) {{ memoryChanged(projectId: $p) {{ {EVENT} }} }}"
CANDIDATES = f"subscription($p: ID) {{ candidateAdded(projectId: $p) {{ {EVENT} }} }}"

REMEMBER = """mutation($input: MemoryInput!, $p: ID) {
  remember(input: $input, projectId: $p) { memory { id status } }
}"""
RUN = """mutation($p: ID) { runPromotion(sessionId: "thread-1", projectId: $p) { promoted } }"""
UPDATE = """mutation($id: ID!, $input: MemoryUpdateInput!) {
  updateMemory(id: $id, input: $input) { id }
}"""
FORGET = """mutation($id: ID!) { forget(id: $id) }"""


def iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).isoformat()


def strong(content: str) -> dict[str, Any]:
    """Scores about 0.67 when fresh: above the 0.6 promotion threshold."""
    return {"content": content, "memoryType": "RISK", "confidence": 0.9, "sessionId": S}


class Socket:
    """One graphql-transport-ws connection, read with a deadline on every message."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        return json.loads(self.ws.recv(timeout=TIMEOUT))

    def init(self, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send({"type": "connection_init", "payload": payload or {}})
        return self.receive()

    def subscribe(self, id: str, query: str, variables: dict[str, Any] | None = None) -> None:
        self.send(
            {"id": id, "type": "subscribe", "payload": {"query": query, "variables": variables}}
        )

    def next_event(self, id: str) -> dict[str, Any]:
        message = self.receive()
        assert message["type"] == "next" and message["id"] == id, message
        assert "errors" not in message["payload"], message
        (event,) = message["payload"]["data"].values()
        return event

    def assert_nothing_pending(self) -> None:
        """A ping is answered after everything already queued for this socket."""
        self.send({"type": "ping"})
        assert self.receive() == {"type": "pong"}


def ws_url(http: httpx.Client) -> str:
    return str(http.base_url).replace("http://", "ws://", 1).rstrip("/") + "/graphql"


@contextmanager
def open_socket(http: httpx.Client, headers: dict[str, str] | None = None) -> Iterator[Socket]:
    with connect(
        ws_url(http),
        subprotocols=[PROTOCOL],
        additional_headers=headers,
        open_timeout=TIMEOUT,
        close_timeout=TIMEOUT,
    ) as ws:
        yield Socket(ws)


@pytest.fixture
def socket(graphql_http: httpx.Client) -> Iterator[Socket]:
    with open_socket(graphql_http) as sock:
        assert sock.init() == {"type": "connection_ack"}
        yield sock


def wait_subscribed(gm: GraphMem, project: str, topic: Topic, count: int = 1) -> None:
    """Subscribing is asynchronous on the server: wait until it is listening."""
    deadline = time.monotonic() + TIMEOUT
    while gm.events.count(project, topic) < count:
        assert time.monotonic() < deadline, f"no subscription to {topic} in {project}"
        time.sleep(0.01)


def test_a_promotion_reaches_the_subscribers_of_its_project_only(
    socket: Socket, gql: GraphQLClient, gm: GraphMem, clock: ManualClock
) -> None:
    socket.subscribe("a", PROMOTED, {"p": "alpha"})
    wait_subscribed(gm, "alpha", Topic.PROMOTED)
    in_beta = gql.data(REMEMBER, {"input": strong("beta: the VPN drops at midnight"), "p": "beta"})
    in_alpha = gql.data(REMEMBER, {"input": strong("alpha: disk fills on Sundays"), "p": "alpha"})
    clock.advance(60)  # still above the threshold a minute later; the events carry this time

    # Beta first: had its event leaked to alpha's subscriber, it would arrive first.
    assert gql.data(RUN, {"p": "beta"})["runPromotion"]["promoted"] != []
    (promoted,) = gql.data(RUN, {"p": "alpha"})["runPromotion"]["promoted"]

    event = socket.next_event("a")
    alpha_id = in_alpha["remember"]["memory"]["id"]
    assert promoted == alpha_id != in_beta["remember"]["memory"]["id"]
    assert (event["memoryId"], event["projectId"], event["kind"]) == (alpha_id, "alpha", "PROMOTED")
    assert (event["fromTier"], event["toTier"], event["missed"]) == ("WORKING", "EPISODIC", 0)
    assert event["at"] == iso(clock.now())
    assert event["memory"] == {
        "id": alpha_id,
        "content": "alpha: disk fills on Sundays",
        "tier": "EPISODIC",
        "status": "ACTIVE",
    }
    socket.assert_nothing_pending()


def test_memory_changed_follows_a_memory_from_remember_to_forget(
    socket: Socket, gql: GraphQLClient, gm: GraphMem
) -> None:
    socket.subscribe("c", CHANGED)
    wait_subscribed(gm, "default", Topic.CHANGED)

    memory_id = gql.data(REMEMBER, {"input": {"content": "builds run on Tuesdays"}})["remember"][
        "memory"
    ]["id"]
    created = socket.next_event("c")
    assert (created["memoryId"], created["projectId"], created["kind"]) == (
        memory_id,
        "default",
        "CREATED",
    )
    assert created["memory"]["content"] == "builds run on Tuesdays"

    gql.data(UPDATE, {"id": memory_id, "input": {"content": "builds run on Wednesdays"}})
    updated = socket.next_event("c")
    # The memory is read when the event is sent, not served from an earlier read.
    assert (updated["kind"], updated["memory"]["content"]) == (
        "UPDATED",
        "builds run on Wednesdays",
    )

    gm.pin(memory_id)  # a write through the Python API of the same instance
    assert socket.next_event("c")["kind"] == "PINNED"

    gql.data(FORGET, {"id": memory_id})
    forgotten = socket.next_event("c")
    assert (forgotten["kind"], forgotten["memoryId"], forgotten["memory"]) == (
        "FORGOTTEN",
        memory_id,
        None,
    )
    socket.assert_nothing_pending()


def test_candidate_added_reports_new_candidates_and_nothing_else(
    socket: Socket, gql: GraphQLClient, gm: GraphMem
) -> None:
    socket.subscribe("n", CANDIDATES, {"p": "alpha"})
    wait_subscribed(gm, "alpha", Topic.CANDIDATE_ADDED)

    # Active from the start, or in another project: not candidates of alpha.
    gql.data(REMEMBER, {"input": {"content": "a manual note"}, "p": "alpha"})
    extracted = {"content": "the linter rejects tabs", "source": "AUTO_EXTRACTED"}
    gql.data(REMEMBER, {"input": extracted, "p": "beta"})
    written = gql.data(REMEMBER, {"input": extracted, "p": "alpha"})["remember"]["memory"]
    assert written["status"] == "CANDIDATE"

    event = socket.next_event("n")
    assert (event["memoryId"], event["projectId"], event["kind"]) == (
        written["id"],
        "alpha",
        "CREATED",
    )
    assert event["memory"]["status"] == "CANDIDATE"
    socket.assert_nothing_pending()


def test_closing_a_subscription_stops_its_deliveries(socket: Socket, gm: GraphMem) -> None:
    socket.subscribe("c", CHANGED)
    wait_subscribed(gm, "default", Topic.CHANGED)
    socket.send({"id": "c", "type": "complete"})
    deadline = time.monotonic() + TIMEOUT
    while gm.events.count("default", Topic.CHANGED):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    gm.remember({"content": "written after the client stopped listening"})
    socket.assert_nothing_pending()


@pytest.mark.parametrize(
    ("query", "variables", "code", "field"),
    [
        ("subscription { memoryPromoted { nope } }", None, "GRAPHQL_VALIDATION_FAILED", None),
        (PROMOTED, {"p": "not a project!"}, "INVALID_INPUT", "projectId"),
        (PROMOTED, {"p": 42.5}, "INVALID_INPUT", "projectId"),
    ],
)
def test_a_bad_subscription_gets_an_error_message_and_the_socket_stays_usable(
    socket: Socket,
    gm: GraphMem,
    query: str,
    variables: dict[str, Any] | None,
    code: str,
    field: str | None,
) -> None:
    socket.subscribe("bad", query, variables)
    message = socket.receive()
    assert (message["type"], message["id"]) == ("error", "bad"), message
    (error,) = message["payload"]
    assert error["extensions"]["code"] == code, error
    assert error["extensions"].get("field") == field, error
    if field is not None:
        assert error["message"].startswith(f"{field}:"), error

    socket.subscribe("good", CHANGED)
    wait_subscribed(gm, "default", Topic.CHANGED)
    memory_id = gm.remember({"content": "the socket still works"}).id
    assert socket.next_event("good")["memoryId"] == memory_id


@pytest.fixture
def secured(gm: GraphMem) -> Iterator[httpx.Client]:
    """A server that requires an API key on every request and connection."""
    with serve(create_app(gm, Settings.model_validate(dict(auth="required")))) as http:
        yield http


def test_a_key_in_connection_init_scopes_the_connection_to_its_projects(
    secured: httpx.Client, gm: GraphMem
) -> None:
    _, token = gm.keys.create("watcher", ["alpha"], "read")
    with open_socket(secured) as sock:
        assert sock.init({"authorization": f"Bearer {token}"}) == {"type": "connection_ack"}

        sock.subscribe("beta", PROMOTED, {"p": "beta"})
        refused = sock.receive()
        assert (refused["type"], refused["id"]) == ("error", "beta"), refused
        (error,) = refused["payload"]
        assert error["extensions"] == {"code": "FORBIDDEN", "field": "projectId"}, error

        # A single-project key needs no projectId.
        sock.subscribe("alpha", CHANGED)
        wait_subscribed(gm, "alpha", Topic.CHANGED)
        gm.remember({"content": "only alpha's watcher sees this"}, project_id="beta")
        memory_id = gm.remember({"content": "alpha's news"}, project_id="alpha").id
        event = sock.next_event("alpha")
        assert (event["memoryId"], event["projectId"]) == (memory_id, "alpha")


def test_the_upgrade_requests_authorization_header_also_authenticates(
    secured: httpx.Client, gm: GraphMem
) -> None:
    _, token = gm.keys.create("watcher", ["alpha"], "read")
    with open_socket(secured, headers={"Authorization": f"Bearer {token}"}) as sock:
        assert sock.init() == {"type": "connection_ack"}
        sock.subscribe("beta", PROMOTED, {"p": "beta"})
        assert sock.receive()["type"] == "error"
        sock.subscribe("alpha", PROMOTED, {"p": "alpha"})
        wait_subscribed(gm, "alpha", Topic.PROMOTED)


@pytest.mark.parametrize(
    "payload",
    [{}, {"authorization": "Bearer gmk_not-a-real-key"}, {"authorization": "Basic abc"}],
)
def test_a_connection_without_a_valid_key_is_refused(
    secured: httpx.Client, gm: GraphMem, payload: dict[str, Any]
) -> None:
    with open_socket(secured) as sock:
        sock.send({"type": "connection_init", "payload": payload})
        with pytest.raises(ConnectionClosed) as closed:
            sock.receive()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    assert gm.events.count("default", Topic.CHANGED) == 0
