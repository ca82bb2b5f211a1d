"""A key revoked while a graphql-transport-ws connection made with it is open:
against a real uvicorn server and a real FalkorDB, the connection can start
nothing more (each operation gets the error HTTP gives the same key), and its
running subscriptions stop before they deliver anything more, within
``graphmem.services.keys.RECHECK_EVERY_S`` when another process revoked the key."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.clock import ManualClock
from graphmem.graphql.app import create_app
from graphmem.services import keys
from graphmem.services.events import Topic
from graphmem.services.keys import ApiKeys
from graphmem.settings import Settings
from tests.integration.conftest import serve
from tests.integration.test_subscriptions import Socket, open_socket, wait_subscribed

pytestmark = pytest.mark.backends("falkordb")

REMEMBER = """mutation($c: String!) {
  remember(input: {content: $c}) { created memory { id content } }
}"""
MEMORIES = "{ memories(first: 50) { edges { node { content } } } }"
CHANGED = "subscription { memoryChanged { memoryId kind memory { content } } }"
REVOKED = {"message": "invalid or revoked API key", "extensions": {"code": "UNAUTHENTICATED"}}


@pytest.fixture
def secured(gm: GraphMem) -> Iterator[httpx.Client]:
    """A server that requires an API key on every request and connection."""
    with serve(create_app(gm, Settings.model_validate(dict(auth="required")))) as http:
        yield http


def run(sock: Socket, id: str, query: str, variables: dict[str, Any] | None = None) -> list[dict]:
    """Every message of one query or mutation, up to its last (``complete`` or ``error``)."""
    sock.subscribe(id, query, variables)
    messages = []
    while not messages or messages[-1]["type"] not in ("complete", "error"):
        message = sock.receive()
        assert message.get("id") == id, message
        messages.append(message)
    return messages


def contents(gm: GraphMem) -> list[str]:
    page = gm.list({"include_candidates": True}, first=50, project_id="alpha")
    return sorted(m.content for m in page.items)


@pytest.mark.parametrize("sent_in", ["connection_init", "upgrade header"])
def test_a_revoked_key_starts_nothing_more_on_an_open_socket(
    secured: httpx.Client, gm: GraphMem, sent_in: str
) -> None:
    key, token = gm.keys.create("writer", ["alpha"], Role.WRITE)
    bearer = f"Bearer {token}"
    headers = {"Authorization": bearer} if sent_in == "upgrade header" else None
    with open_socket(secured, headers=headers) as sock:
        payload = {"authorization": bearer} if sent_in == "connection_init" else None
        assert sock.init(payload) == {"type": "connection_ack"}
        before = run(sock, "1", REMEMBER, {"c": "written while the key was live"})
        assert [m["type"] for m in before] == ["next", "complete"]
        assert before[0]["payload"]["data"]["remember"]["created"] is True

        gm.keys.revoke(key.id)
        over_http = secured.post(
            "/graphql",
            json={"query": REMEMBER, "variables": {"c": "over http"}},
            headers={"Authorization": bearer},
        )
        assert over_http.status_code == 401
        assert over_http.json()["errors"] == [REVOKED]

        # A mutation, a query and a subscription: each gets the error HTTP gave.
        for id, query, variables in (
            ("2", REMEMBER, {"c": "written after revocation"}),
            ("3", MEMORIES, None),
            ("4", CHANGED, None),
        ):
            assert run(sock, id, query, variables) == [
                {"id": id, "type": "error", "payload": [REVOKED]}
            ]
        # The connection itself stays open, as for any refused operation.
        sock.assert_nothing_pending()
    assert contents(gm) == ["written while the key was live"]
    assert gm.events.count("alpha", Topic.CHANGED) == 0


def test_a_subscription_ends_at_once_when_this_process_revokes_its_key(
    secured: httpx.Client, gm: GraphMem
) -> None:
    key, token = gm.keys.create("watcher", ["alpha"], Role.READ)
    with open_socket(secured) as sock:
        assert sock.init({"authorization": f"Bearer {token}"}) == {"type": "connection_ack"}
        sock.subscribe("w", CHANGED)
        wait_subscribed(gm, "alpha", Topic.CHANGED)
        gm.remember({"content": "seen while the key was live"}, project_id="alpha")
        assert sock.next_event("w")["memory"]["content"] == "seen while the key was live"

        gm.keys.revoke(key.id)
        gm.remember({"content": "never sent to a revoked key"}, project_id="alpha")
        assert_ended_unauthenticated(sock, "w")


def assert_ended_unauthenticated(sock: Socket, id: str) -> None:
    """The subscription's last result carries the error HTTP gives a revoked key
    and no data; then it completes, and nothing else is on its way."""
    message = sock.receive()
    assert (message["id"], message["type"]) == (id, "next"), message
    assert message["payload"]["data"] is None, message
    (error,) = message["payload"]["errors"]
    assert (error["message"], error["extensions"]) == (REVOKED["message"], REVOKED["extensions"])
    assert sock.receive() == {"id": id, "type": "complete"}
    sock.assert_nothing_pending()


def test_a_subscription_stops_within_the_recheck_bound_when_another_process_revokes(
    secured: httpx.Client, gm: GraphMem, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``graphmem keys revoke`` runs in another process: this server hears of it
    only by reading the key again, which an open subscription does at most every
    ``RECHECK_EVERY_S`` (shortened here so the test does not wait 2 seconds)."""
    monkeypatch.setattr(keys, "RECHECK_EVERY_S", 0.5)
    key, token = gm.keys.create("watcher", ["alpha"], Role.READ)
    other_process = ApiKeys(gm.store, clock)
    with open_socket(secured) as sock:
        assert sock.init({"authorization": f"Bearer {token}"}) == {"type": "connection_ack"}
        sock.subscribe("w", CHANGED)
        wait_subscribed(gm, "alpha", Topic.CHANGED)

        other_process.revoke(key.id)
        time.sleep(keys.RECHECK_EVERY_S + 0.1)
        gm.remember({"content": "never sent to a revoked key"}, project_id="alpha")
        assert_ended_unauthenticated(sock, "w")


def test_events_to_a_live_key_cost_no_key_reads(
    secured: httpx.Client, gm: GraphMem, monkeypatch: pytest.MonkeyPatch, store_reads
) -> None:
    """The check before each event trusts a recent one: a burst of events reads
    the key no more often than once per ``RECHECK_EVERY_S`` (here: not at all)."""
    monkeypatch.setattr(keys, "RECHECK_EVERY_S", 60.0)
    _, token = gm.keys.create("watcher", ["alpha"], Role.READ)
    with open_socket(secured) as sock:
        assert sock.init({"authorization": f"Bearer {token}"}) == {"type": "connection_ack"}
        sock.subscribe("w", CHANGED)
        wait_subscribed(gm, "alpha", Topic.CHANGED)
        reads_before = store_reads["find_api_key"]
        for n in range(5):
            gm.remember({"content": f"event number {n}"}, project_id="alpha")
            assert sock.next_event("w")["memory"]["content"] == f"event number {n}"
    assert store_reads["find_api_key"] == reads_before


def test_a_key_revoked_before_connection_init_opens_nothing(
    secured: httpx.Client, gm: GraphMem, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upgrade's header was checked at the upgrade; ``connection_init`` may
    come later, and checks it again."""
    monkeypatch.setattr(keys, "RECHECK_EVERY_S", 0.0)
    key, token = gm.keys.create("watcher", ["alpha"], Role.READ)
    with open_socket(secured, headers={"Authorization": f"Bearer {token}"}) as sock:
        ApiKeys(gm.store, clock).revoke(key.id)
        sock.send({"type": "connection_init", "payload": {}})
        with pytest.raises(ConnectionClosed) as closed:
            sock.receive()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
