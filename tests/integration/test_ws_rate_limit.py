"""The per-key rate limit holds on a graphql-transport-ws connection as over
HTTP, against a real uvicorn server and a real FalkorDB: each operation a
connection starts takes a token from the same bucket as the key's HTTP
requests, and one refused gets the RATE_LIMITED error HTTP gives while the
connection stays open."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import serve
from tests.integration.test_subscriptions import open_socket
from tests.integration.test_ws_revocation import MEMORIES, run

pytestmark = pytest.mark.backends("falkordb")

BURST = 3


@pytest.fixture
def limited(gm: GraphMem) -> Iterator[httpx.Client]:
    """A server whose keys may send ``BURST`` requests, then one every 100 s."""
    settings = Settings.model_validate(dict(auth="required", rate_limit=0.01, rate_burst=BURST))
    with serve(create_app(gm, settings)) as http:
        yield http


def test_operations_on_a_socket_take_from_the_keys_bucket(
    limited: httpx.Client, gm: GraphMem
) -> None:
    _, token = gm.keys.create("reader", ["alpha"], Role.READ)
    _, other = gm.keys.create("another", ["alpha"], Role.READ)
    bearer = {"Authorization": f"Bearer {token}"}
    with open_socket(limited) as sock:
        assert sock.init({"authorization": f"Bearer {token}"}) == {"type": "connection_ack"}
        for id in map(str, range(BURST)):
            assert [m["type"] for m in run(sock, id, MEMORIES)] == ["next", "complete"]
        (refused,) = run(sock, "late", MEMORIES)
        assert refused["type"] == "error"
        (error,) = refused["payload"]
        assert error["extensions"] == {"code": "RATE_LIMITED"}
        assert "rate limit of 0.01 requests per second exceeded" in error["message"]
        sock.assert_nothing_pending()

    # The socket emptied the bucket HTTP takes from too; another key's is full.
    over_http = limited.post("/graphql", json={"query": MEMORIES}, headers=bearer)
    assert over_http.status_code == 429
    assert over_http.json()["errors"][0]["extensions"] == {"code": "RATE_LIMITED"}
    fresh = limited.post(
        "/graphql", json={"query": MEMORIES}, headers={"Authorization": f"Bearer {other}"}
    )
    assert fresh.status_code == 200 and "errors" not in fresh.json()
