"""API keys and the gate over real HTTP: who may call, on which project, how much."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.errors import InvalidInputError, NotFoundError, UnauthenticatedError
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import serve

REMEMBER = """mutation($c: String!, $p: ID) {
  remember(input: {content: $c}, projectId: $p) { memory { id projectId } }
}"""
MEMORIES = "query($p: ID) { memories(projectId: $p) { edges { node { id content } } } }"


def post(
    http: httpx.Client, query: str, token: str | None = None, **variables: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return http.post("/graphql", json={"query": query, "variables": variables}, headers=headers)


def settings(**overrides: Any) -> Settings:
    return Settings.model_validate({"auth": "required", **overrides})


@pytest.fixture
def server(gm: GraphMem) -> Iterator[Callable[..., Any]]:
    """Start a server on ``gm`` with the given settings; stopped at the end."""
    stack: list[Any] = []

    def start(**overrides: Any) -> httpx.Client:
        context = serve(create_app(gm, settings(**overrides)))
        stack.append(context)
        return context.__enter__()

    yield start
    for context in reversed(stack):
        context.__exit__(None, None, None)


def test_keys_are_stored_hashed_and_revocable(gm: GraphMem, store: Store) -> None:
    key, token = gm.keys.create("agent", ["alpha"], Role.WRITE)
    assert token.startswith("gmk_") and len(token) > 40
    stored = cypher(store, "MATCH (k:ApiKey) RETURN properties(k)")
    assert stored and token not in repr(stored)
    assert gm.keys.authenticate(token).projects == frozenset({"alpha"})
    gm.keys.revoke(key.id)
    with pytest.raises(UnauthenticatedError):
        gm.keys.authenticate(token)
    assert gm.keys.list()[0].revoked
    with pytest.raises(NotFoundError):
        gm.keys.revoke("no-such-key")


def test_a_revoked_key_keeps_the_agent_it_acted_as(gm: GraphMem) -> None:
    key, _ = gm.keys.create("bot", ["alpha"], Role.WRITE, agent_id="planner")
    revoked = gm.keys.revoke(key.id)
    assert revoked.revoked and revoked.agent_id == "planner"
    assert gm.keys.list()[0] == revoked


@pytest.mark.parametrize(
    ("name", "projects", "role", "field"),
    [
        ("", ["alpha"], "read", "name"),
        ("x", [], "read", "projects"),
        ("x", ["has space"], "read", "projects.0"),
        ("x", ["alpha"], "owner", "role"),
    ],
)
def test_bad_key_requests_name_the_field(
    gm: GraphMem, name: str, projects: list[str], role: str, field: str
) -> None:
    with pytest.raises(InvalidInputError) as raised:
        gm.keys.create(name, projects, role)
    assert raised.value.field == field
    assert gm.keys.list() == []


def test_requests_without_a_live_key_are_refused(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server()
    key, token = gm.keys.create("agent", ["alpha"], Role.WRITE)
    for headers in ({}, {"Authorization": "Bearer gmk_wrong"}, {"Authorization": "Basic abc"}):
        response = http.post("/graphql", json={"query": MEMORIES}, headers=headers)
        assert response.status_code == 401, response.text
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert response.headers["www-authenticate"].startswith("Bearer")
    assert post(http, MEMORIES, token).status_code == 200
    gm.keys.revoke(key.id)
    assert post(http, MEMORIES, token).status_code == 401


def test_roles_and_projects_bound_what_a_key_does(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server()
    _, reader = gm.keys.create("reader", ["alpha"], Role.READ)
    _, writer = gm.keys.create("writer", ["alpha"], Role.WRITE)
    _, admin = gm.keys.create("admin", ["alpha", "beta"], Role.ADMIN)

    # A single-project key acts in its project when the call names none.
    created = post(http, REMEMBER, writer, c="alpha fact").json()["data"]["remember"]["memory"]
    assert created["projectId"] == "alpha"

    refused = post(http, REMEMBER, reader, c="from a reader").json()
    assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert refused["data"]["remember"] is None

    foreign = post(http, REMEMBER, writer, c="into beta", p="beta").json()
    assert foreign["errors"][0]["extensions"] == {"code": "FORBIDDEN", "field": "projectId"}

    gm.open_session("s", project_id="alpha")
    promote = 'mutation { runPromotion(sessionId: "s", projectId: "alpha") { runId } }'
    assert post(http, promote, writer).json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert "errors" not in post(http, promote, admin).json()

    # A multi-project key must name its project unless it holds the default one.
    assert post(http, MEMORIES, admin).json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    seen = post(http, MEMORIES, reader).json()["data"]["memories"]["edges"]
    assert [e["node"]["content"] for e in seen] == ["alpha fact"]
    assert gm.list(project_id="beta").items == []


def test_an_id_from_another_project_is_not_found(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server()
    _, alpha = gm.keys.create("a", ["alpha"], Role.WRITE)
    secret = gm.remember({"content": "beta's secret"}, project_id="beta")
    query = "query($id: ID!) { memory(id: $id) { id content } }"
    assert post(http, query, alpha, id=secret.id).json() == {"data": {"memory": None}}
    forget = "mutation($id: ID!) { forget(id: $id) }"
    error = post(http, forget, alpha, id=secret.id).json()["errors"][0]
    missing = post(http, forget, alpha, id="no-such-id").json()["errors"][0]
    assert error["extensions"] == missing["extensions"]
    assert error["message"].replace(secret.id, "X") == missing["message"].replace("no-such-id", "X")
    assert gm.get(secret.id, project_id="beta").content == "beta's secret"


def test_rate_limit_is_per_key(gm: GraphMem, server: Callable[..., httpx.Client]) -> None:
    http = server(rate_limit=0.001, rate_burst=3)
    _, first = gm.keys.create("first", ["alpha"], Role.READ)
    _, second = gm.keys.create("second", ["alpha"], Role.READ)
    statuses = [post(http, MEMORIES, first).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = post(http, MEMORIES, first)
    assert refused.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert int(refused.headers["retry-after"]) >= 1
    assert post(http, MEMORIES, second).status_code == 200


def test_an_oversized_body_is_refused_unread(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server(auth="off", max_body_bytes=4096)
    big = "x" * 5000
    response = post(http, REMEMBER, c=big)
    assert response.status_code == 413
    error = response.json()["errors"][0]
    assert error["extensions"] == {"code": "PAYLOAD_TOO_LARGE", "field": "body"}
    assert "4096" in error["message"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the gate counts as it reads
        yield b'{"query": "mutation { remember(input: {content: \\"'
        for _ in range(10):
            yield b"y" * 1000
        yield b'\\"}) { memory { id } } }"}'

    streamed = http.post("/graphql", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert gm.list().items == []
    assert post(http, REMEMBER, c="small").status_code == 200


def test_document_limits_refuse_whole_documents(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server(auth="off", max_query_depth=4, max_aliases=3, max_tokens=200)
    deep = "{ memories { edges { node { relations { to { id } } } } } }"
    aliased = (
        "mutation {"
        + " ".join(
            f'a{i}: remember(input: {{content: "m{i}"}}) {{ memory {{ id }} }}' for i in range(4)
        )
        + "}"
    )
    long = "{ " + " ".join(f"f{i}: __typename" for i in range(150)) + " }"
    for document in (deep, aliased, long):
        body = post(http, document).json()
        assert body["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED", body
        assert "data" not in body or body["data"] is None
    assert gm.list().items == []


def test_production_mode_hides_the_schema(
    gm: GraphMem, server: Callable[..., httpx.Client]
) -> None:
    http = server(auth="off", mode="production")
    body = post(http, "{ __schema { types { name } } }").json()
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    page = http.get("/graphql", headers={"Accept": "text/html"})
    assert "graphiql" not in page.text.lower()
    dev = server(auth="off")
    assert "errors" not in post(dev, "{ __schema { queryType { name } } }").json()
    assert "graphiql" in dev.get("/graphql", headers={"Accept": "text/html"}).text.lower()


def test_auth_is_on_by_default_off_loopback() -> None:
    assert Settings(host="0.0.0.0").server.auth_required
    assert Settings(host="192.168.1.5").server.auth_required
    assert not Settings(host="127.0.0.1").server.auth_required
    assert not Settings(host="localhost").server.auth_required
    assert Settings(host="127.0.0.1", auth="required").server.auth_required
    with pytest.raises(ValueError, match="GRAPHMEM_AUTH=off"):
        Settings(host="0.0.0.0", auth="off")
