"""Bodies and websocket messages that cannot be decoded, against a real uvicorn
server and a real FalkorDB: JSON nested far deeper than any request needs
(which used to exhaust the parser's stack and answer 500), and the other ways
a body fails to decode, all answered the same way: a 400 with one GraphQL error
object over HTTP, close code 4400 on a websocket."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from graphmem.api import GraphMem
from graphmem.graphql.app import MAX_JSON_DEPTH
from tests.integration.conftest import GraphQLClient
from tests.integration.test_subscriptions import open_socket

pytestmark = pytest.mark.backends("falkordb")

JSON = {"content-type": "application/json"}
TOO_DEEP = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"


def nested(levels: int) -> str:
    """A request whose ``variables`` hold ``levels`` arrays one in another."""
    return '{"query": "{ __typename }", "variables": {"a": ' + "[" * levels + "]" * levels + "}}"


def refused(response: httpx.Response) -> dict:
    """The one error of a 400 answered with the GraphQL error shape."""
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/json"), response.text
    (error,) = response.json()["errors"]
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": "body"}, error
    return error


def test_a_body_nested_100000_levels_deep_is_a_400_naming_the_limit(
    gql: GraphQLClient, graph_snapshot, caplog: pytest.LogCaptureFixture
) -> None:
    before = graph_snapshot()
    with caplog.at_level(logging.ERROR):
        response = gql.http.post("/graphql", content=nested(100_000), headers=JSON)
    assert refused(response)["message"] == f"body: {TOO_DEEP}"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert graph_snapshot() == before
    # The server is none the worse for it.
    assert gql.data("{ __typename }") == {"__typename": "Query"}


def test_the_limit_is_exact_and_brackets_inside_strings_do_not_count(gql: GraphQLClient) -> None:
    # The body's own object and ``variables`` are two of the levels.
    at_limit = gql.http.post("/graphql", content=nested(MAX_JSON_DEPTH - 2), headers=JSON)
    assert at_limit.status_code == 200, at_limit.text
    assert at_limit.json() == {"data": {"__typename": "Query"}}
    over = gql.http.post("/graphql", content=nested(MAX_JSON_DEPTH - 1), headers=JSON)
    assert refused(over)["message"] == f"body: {TOO_DEEP}"

    quoted = json.dumps({"query": "{ __typename }", "variables": {"a": '[{"' * 10_000}})
    response = gql.http.post("/graphql", content=quoted, headers=JSON)
    assert response.json() == {"data": {"__typename": "Query"}}


def test_deep_variables_in_a_get_are_refused_the_same_way(gql: GraphQLClient) -> None:
    deep = quote("[" * 3000 + "]" * 3000)
    response = gql.http.get(f"/graphql?query={quote('{ __typename }')}&variables={deep}")
    assert refused(response)["message"] == f"body: {TOO_DEEP}"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{nope", "body: not JSON (Expecting property name enclosed in double quotes:"),
        (b"5", "body: must be a JSON object"),
        (b"null", "body: must be a JSON object"),
        (b'{"query": "\xff"}', "body: not UTF-8"),
    ],
)
def test_every_undecodable_body_gets_the_same_answer(
    gql: GraphQLClient, body: bytes, message: str
) -> None:
    response = gql.http.post("/graphql", content=body, headers=JSON)
    assert refused(response)["message"].startswith(message)


def test_a_deeply_nested_websocket_message_closes_the_socket_with_4400(
    graphql_http: httpx.Client, gm: GraphMem
) -> None:
    with open_socket(graphql_http) as sock:
        assert sock.init() == {"type": "connection_ack"}
        deep = "[" * 100_000 + "]" * 100_000
        sock.ws.send(
            '{"id": "1", "type": "subscribe", "payload": {"query": "{ __typename }", '
            f'"variables": {{"a": {deep}}}}}}}'
        )
        with pytest.raises(ConnectionClosed) as closed:
            sock.receive()
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4400, f"message: {TOO_DEEP}")
    with open_socket(graphql_http) as sock:
        assert sock.init() == {"type": "connection_ack"}
        sock.assert_nothing_pending()
