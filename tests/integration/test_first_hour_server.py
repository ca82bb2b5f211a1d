"""What a newcomer meets in the first hour against a real server: a bad time,
blank content, two bad arguments, a typo in a what-if key, a body strawberry
cannot read, the root address and the favicon. Each answer is a GraphQL error
naming what to fix, or a page that says where to go."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

import graphmem
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.graphql.app import FAVICON, banner, create_app
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, serve

pytestmark = pytest.mark.backends("falkordb")

ISO_HINT = "ISO 8601"

BAD_TIMES: dict[str, tuple[str, dict[str, Any], str]] = {
    "occurredAt literal": (
        'mutation { remember(input: {content: "x", occurredAt: "yesterday"}) { memory { id } } }',
        {},
        "input.occurredAt",
    ),
    "occurredAt variable": (
        'mutation($t: DateTime) { remember(input: {content: "x", occurredAt: $t}) '
        "{ memory { id } } }",
        {"t": "yesterday"},
        "input.occurredAt",
    ),
    "validFrom in an input variable": (
        "mutation($i: MemoryInput!) { remember(input: $i) { memory { id } } }",
        {"i": {"content": "x", "validFrom": "yesterday"}},
        "input.validFrom",
    ),
    "validTo of an update": (
        'mutation { updateMemory(id: "x", input: {validTo: "soon"}) { id } }',
        {},
        "input.validTo",
    ),
    "asOf literal": ('{ memories(asOf: "yesterday") { edges { cursor } } }', {}, "asOf"),
    "asOf variable": (
        'query($at: DateTime) { search(query: "pool", asOf: $at) { notes } }',
        {"at": "last week"},
        "asOf",
    ),
    "asOf not a string": ('{ search(query: "pool", asOf: true) { notes } }', {}, "asOf"),
    "occurredAfter": (
        '{ knowledgeContext(contextHint: "pool size", occurredAfter: "2024-13-45") { notes } }',
        {},
        "occurredAfter",
    ),
    "filter createdAfter": (
        '{ search(query: "pool", filters: {createdAfter: "monday"}) { notes } }',
        {},
        "filters.createdAfter",
    ),
    "consistency reports before": (
        '{ consistencyReports(before: "later") { __typename } }',
        {},
        "before",
    ),
}


@pytest.mark.parametrize("case", BAD_TIMES.values(), ids=BAD_TIMES.keys())
def test_a_bad_time_is_invalid_input_naming_the_argument_and_the_format(
    case: tuple[str, dict[str, Any], str], gql: GraphQLClient
) -> None:
    document, variables, field = case
    error = gql.error(document, variables)
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": field}, error
    message = error["message"]
    assert message.startswith(f"{field}: "), message
    assert ISO_HINT in message and "epoch seconds" in message, message
    assert "invalid literal" not in message and "b'" not in message, message


def test_a_time_is_iso_text_or_epoch_seconds(gql: GraphQLClient, clock: ManualClock) -> None:
    at = int(clock.now()) - 3600
    made = gql.data(
        'mutation($t: DateTime) { remember(input: {content: "deploy went out", '
        "occurredAt: $t}) { memory { occurredAt } } }",
        {"t": at},
    )["remember"]["memory"]
    epoch_answer = made["occurredAt"]
    listed = gql.data(f"{{ memories(asOf: {int(clock.now()) + 1}) {{ edges {{ cursor }} }} }}")
    assert len(listed["memories"]["edges"]) == 1
    before = gql.data(f"{{ memories(asOf: {at}) {{ edges {{ cursor }} }} }}")
    assert before["memories"]["edges"] == []
    again = gql.data(
        'mutation($t: DateTime) { remember(input: {content: "deploy went out twice", '
        "occurredAt: $t}) { memory { occurredAt } } }",
        {"t": epoch_answer},
    )["remember"]["memory"]
    assert again["occurredAt"] == epoch_answer


def test_blank_content_is_called_blank(gql: GraphQLClient) -> None:
    error = gql.error('mutation { remember(input: {content: "   "}) { memory { id } } }')
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": "input.content"}
    assert error["message"] == "input.content: is blank: it holds only whitespace"


def test_every_bad_argument_is_named_in_camel_case(gql: GraphQLClient) -> None:
    error = gql.error(
        '{ knowledgeContext(contextHint: "pool size", minRelevance: 5, maxResults: 0) { notes } }'
    )
    assert error["extensions"] == {
        "code": "INVALID_INPUT",
        "field": "maxResults",
        "fields": ["maxResults", "minRelevance"],
    }, error
    assert "min_relevance" not in error["message"] and "max_results" not in error["message"]
    assert "minRelevance: " in error["message"] and error["message"].startswith("maxResults: ")

    both = gql.error(
        'mutation { remember(input: {content: " ", confidence: 5}) { memory { id } } }'
    )
    assert both["extensions"]["fields"] == ["input.content", "input.confidence"], both

    ended = gql.error(
        'mutation { remember(input: {content: "x", validFrom: "2020-01-02", '
        'validTo: "2020-01-01"}) { memory { id } } }'
    )
    assert ended["extensions"]["field"] == "input.validTo", ended
    assert ended["message"].startswith("input.validTo: "), ended


def test_a_what_if_typo_names_the_key_and_the_closest_one(gql: GraphQLClient) -> None:
    error = gql.error("{ whatIf(variant: {rules: {promote_treshold: 0.7}}) { changed } }")
    assert error["extensions"] == {
        "code": "INVALID_INPUT",
        "field": "variant.rules.promote_treshold",
    }, error
    assert "'promote_treshold'" in error["message"]
    assert "did you mean 'promote_threshold'?" in error["message"]
    assert "Extra inputs are not permitted" not in error["message"]

    weight = gql.error("{ whatIf(variant: {weights: {recensy: 0.4}}) { changed } }")
    assert weight["extensions"]["field"] == "variant.weights.recensy"
    assert "did you mean 'recency'?" in weight["message"]


PLAIN_400S = {
    "content type": dict(content=b"query=x", headers={"content-type": "text/plain"}),
    "no query": dict(json={"variables": {}}),
    "variables not an object": dict(json={"query": "{ __typename }", "variables": "x"}),
}


@pytest.mark.parametrize("request_kwargs", PLAIN_400S.values(), ids=PLAIN_400S.keys())
def test_a_request_that_is_not_graphql_gets_a_graphql_error(
    request_kwargs: dict[str, Any], graphql_http: httpx.Client
) -> None:
    response = graphql_http.post("/graphql", **request_kwargs)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json", response.text
    (error,) = response.json()["errors"]
    assert error["extensions"] == {"code": "BAD_REQUEST"}
    assert error["message"]


def test_a_mutation_by_get_and_bad_json_are_graphql_errors(graphql_http: httpx.Client) -> None:
    by_get = graphql_http.get("/graphql", params={"query": 'mutation { pin(id: "x") { id } }'})
    assert by_get.status_code == 400
    assert by_get.json()["errors"][0]["extensions"] == {"code": "BAD_REQUEST"}
    bad = graphql_http.post(
        "/graphql", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "body"}


@pytest.mark.parametrize(
    "accept",
    ["application/json", 'multipart/mixed;subscriptionSpec="1.0", application/json'],
)
def test_a_subscription_over_http_is_a_bad_request_naming_the_websocket(
    graphql_http: httpx.Client, accept: str
) -> None:
    document = "query Q { projects }\nsubscription S { memoryChanged { kind } }"
    for sent in (
        {"query": "subscription { memoryChanged { kind } }"},
        {"query": document, "operationName": "S"},
    ):
        answer = graphql_http.post("/graphql", json=sent, headers={"accept": accept})
        assert answer.status_code == 400, answer.text
        (error,) = answer.json()["errors"]
        assert error["extensions"] == {"code": "BAD_REQUEST"}
        assert "websocket at /graphql (the graphql-transport-ws protocol)" in error["message"]
    # The other operation of the same document, and a query that only says the word, run.
    other = graphql_http.post("/graphql", json={"query": document, "operationName": "Q"})
    assert "errors" not in other.json() and isinstance(other.json()["data"]["projects"], list)
    said = '{ search(query: "subscription renewal", mode: FULLTEXT) { mode } }'
    assert "errors" not in graphql_http.post("/graphql", json={"query": said}).json()


def test_production_graphql_get_without_a_query_is_a_graphql_404(gm: GraphMem) -> None:
    settings = Settings.model_validate(dict(mode="production"))
    with serve(create_app(gm, settings)) as http:
        response = http.get("/graphql", headers={"accept": "text/html"})
        root = http.get("/")
    assert response.status_code == 404
    assert response.json()["errors"][0]["extensions"] == {"code": "NOT_FOUND"}
    assert "no GraphiQL" in root.json()["links"]["/graphql"]


def test_the_root_points_to_the_pages(graphql_http: httpx.Client) -> None:
    answer = graphql_http.get("/")
    assert answer.status_code == 200
    links = answer.json()["links"]
    assert {"/graphql", "/explore", "/healthz", "/readyz", "/metrics"} <= set(links)
    for path in links:
        assert graphql_http.get(path).status_code != 404, path
    page = graphql_http.get("/", headers={"accept": "text/html,application/xhtml+xml"})
    assert page.headers["content-type"].startswith("text/html")
    assert '<a href="/explore">' in page.text and '<a href="/graphql">' in page.text


def test_the_favicon_is_served_from_the_package(graphql_http: httpx.Client) -> None:
    icon = graphql_http.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content == FAVICON.read_bytes() and icon.content.startswith(b"<svg")
    # Shipped: inside the package, and not ignored by git (the wheel takes
    # every file of the package that git does not ignore).
    package = Path(graphmem.__file__).parent
    assert FAVICON.is_relative_to(package)
    ignored = subprocess.run(["git", "check-ignore", "-q", str(FAVICON)], cwd=package, check=False)
    assert ignored.returncode == 1


def test_the_start_banner_prints_the_explorer() -> None:
    lines = banner(Settings.model_validate(dict(host="127.0.0.1", mode="development")), 8123)
    assert "graphmem: GraphiQL at http://127.0.0.1:8123/graphql" in lines
    assert "graphmem: explorer at http://127.0.0.1:8123/explore" in lines
    production = banner(Settings.model_validate(dict(host="0.0.0.0", mode="production")), 80)
    assert "graphmem: GraphQL API at http://0.0.0.0:80/graphql" in production
