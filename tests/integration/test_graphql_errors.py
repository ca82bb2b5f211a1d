"""What a client sees when something goes wrong: a GraphQL error with a code and
the field at fault, nothing written, and no internal detail."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB

from graphmem.api import GraphMem
from graphmem.graphql.app import create_app
from graphmem.store import Store
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore
from tests.integration.conftest import GraphQLClient, serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

Ids = dict[str, str]


@pytest.fixture
def ids(gm: GraphMem) -> Ids:
    """Two memories in the default project, one in another, and one superseding edge."""
    a, b, old, new = gm.remember_many(
        [{"content": "a"}, {"content": "b"}, {"content": "old"}, {"content": "new"}]
    )
    gm.supersede(old, new)
    elsewhere = gm.remember({"content": "other tenant"}, project_id="other").id
    return {"a": a, "b": b, "old": old, "new": new, "elsewhere": elsewhere}


REMEMBER = "mutation($input: MemoryInput!) { remember(input: $input) { memory { id } } }"
RELATE = """mutation(
    $from: ID!, $to: ID!, $type: RelationType!, $weight: Float! = 1, $projectId: ID
) {
    relate(fromId: $from, toId: $to, type: $type, weight: $weight, projectId: $projectId) { type }
}"""
SUPERSEDE = "mutation($old: ID!, $new: ID!) { supersede(oldId: $old, newId: $new) { type } }"
UPDATE = (
    "mutation($id: ID!, $input: MemoryUpdateInput!) { updateMemory(id: $id, input: $input) { id } }"
)
PAGE = """query($first: Int! = 20, $after: String, $filter: MemoryFilter) {
    memories(first: $first, after: $after, filter: $filter) { edges { cursor } } }"""
Case = tuple[str, Callable[[Ids], dict[str, Any]], str, str | None]

BAD_INPUT: dict[str, Case] = {
    "empty content": (
        REMEMBER,
        lambda _: {"input": {"content": ""}},
        "INVALID_INPUT",
        "input.content",
    ),
    "blank content": (
        REMEMBER,
        lambda _: {"input": {"content": " \n "}},
        "INVALID_INPUT",
        "input.content",
    ),
    "content over the limit": (
        REMEMBER,
        lambda _: {"input": {"content": "x" * 10_001}},
        "INVALID_INPUT",
        "input.content",
    ),
    "confidence above 1": (
        REMEMBER,
        lambda _: {"input": {"content": "x", "confidence": 1.5}},
        "INVALID_INPUT",
        "input.confidence",
    ),
    "confidence below 0": (
        REMEMBER,
        lambda _: {"input": {"content": "x", "confidence": -0.1}},
        "INVALID_INPUT",
        "input.confidence",
    ),
    "unknown memory type in a variable": (
        REMEMBER,
        lambda _: {"input": {"content": "x", "memoryType": "GOSSIP"}},
        "INVALID_INPUT",
        "input.memoryType",
    ),
    "unknown memory type in the document": (
        'mutation { remember(input: {content: "x", memoryType: GOSSIP}) { memory { id } } }',
        lambda _: {},
        "INVALID_INPUT",
        "input.memoryType",
    ),
    "unknown input field": (
        'mutation { remember(input: {content: "x", mood: "happy"}) { memory { id } } }',
        lambda _: {},
        "INVALID_INPUT",
        "input.mood",
    ),
    "a new memory cannot start archived": (
        REMEMBER,
        lambda _: {"input": {"content": "x", "tier": "ARCHIVED"}},
        "INVALID_INPUT",
        "input.tier",
    ),
    "tag over the limit": (
        REMEMBER,
        lambda _: {"input": {"content": "x", "tags": ["ok", "t" * 65]}},
        "INVALID_INPUT",
        "input.tags[1]",
    ),
    "malformed project id": (
        'mutation { remember(input: {content: "x"}, projectId: "no spaces") { memory { id } } }',
        lambda _: {},
        "INVALID_INPUT",
        "projectId",
    ),
    "unknown relation type": (
        RELATE,
        lambda i: {"from": i["a"], "to": i["b"], "type": "LIKES"},
        "INVALID_INPUT",
        "type",
    ),
    "self relation": (
        RELATE,
        lambda i: {"from": i["a"], "to": i["a"], "type": "ENABLES"},
        "INVALID_INPUT",
        "toId",
    ),
    "relation weight above 1": (
        RELATE,
        lambda i: {"from": i["a"], "to": i["b"], "type": "ENABLES", "weight": 2},
        "INVALID_INPUT",
        "weight",
    ),
    "relation from an unknown id": (
        RELATE,
        lambda i: {"from": "missing", "to": i["b"], "type": "ENABLES"},
        "NOT_FOUND",
        "fromId",
    ),
    "relation to another project": (
        RELATE,
        lambda i: {"from": i["a"], "to": i["elsewhere"], "type": "RELATED_TO"},
        "NOT_FOUND",
        "toId",
    ),
    "relation from another project": (
        RELATE,
        lambda i: {"from": i["a"], "to": i["elsewhere"], "type": "ENABLES", "projectId": "other"},
        "NOT_FOUND",
        "fromId",
    ),
    "supersede an unknown id": (
        SUPERSEDE,
        lambda i: {"old": "missing", "new": i["a"]},
        "NOT_FOUND",
        "oldId",
    ),
    "supersede in a cycle": (
        SUPERSEDE,
        lambda i: {"old": i["new"], "new": i["old"]},
        "CONFLICT",
        "oldId",
    ),
    "update with nothing to change": (
        UPDATE,
        lambda i: {"id": i["a"], "input": {}},
        "INVALID_INPUT",
        "input",
    ),
    "update confidence above 1": (
        UPDATE,
        lambda i: {"id": i["a"], "input": {"confidence": 3}},
        "INVALID_INPUT",
        "input.confidence",
    ),
    "update an unknown id": (
        UPDATE,
        lambda _: {"id": "missing", "input": {"content": "y"}},
        "NOT_FOUND",
        "id",
    ),
    "update another project's memory": (
        UPDATE,
        lambda i: {"id": i["elsewhere"], "input": {"content": "y"}},
        "NOT_FOUND",
        "id",
    ),
    "feedback out of range": (
        "mutation($id: ID!) { giveFeedback(id: $id, value: 2) { id } }",
        lambda i: {"id": i["a"]},
        "INVALID_INPUT",
        "value",
    ),
    "feedback on an unknown id": (
        'mutation { giveFeedback(id: "missing", value: 1) { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "access to an unknown id": (
        'mutation { recordAccess(id: "missing") { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "pin an unknown id": (
        'mutation { pin(id: "missing") { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "unpin an unknown id": (
        'mutation { unpin(id: "missing") { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "forget an unknown id": ('mutation { forget(id: "missing") }', lambda _: {}, "NOT_FOUND", "id"),
    "forget another project's memory": (
        "mutation($id: ID!) { forget(id: $id) }",
        lambda i: {"id": i["elsewhere"]},
        "NOT_FOUND",
        "id",
    ),
    "malformed session id": (
        'mutation { openSession(id: "not valid!") { id } }',
        lambda _: {},
        "INVALID_INPUT",
        "id",
    ),
    "session name over the limit": (
        "mutation($name: String!) { openSession(name: $name) { id } }",
        lambda _: {"name": "n" * 201},
        "INVALID_INPUT",
        "name",
    ),
    "pause an unknown session": (
        'mutation { pauseSession(id: "missing") { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "close an unknown session": (
        'mutation { closeSession(id: "missing") { id } }',
        lambda _: {},
        "NOT_FOUND",
        "id",
    ),
    "page size zero": (PAGE, lambda _: {"first": 0}, "INVALID_INPUT", "first"),
    "page size over the limit": (PAGE, lambda _: {"first": 201}, "INVALID_INPUT", "first"),
    "cursor not from this API": (PAGE, lambda _: {"after": "garbage"}, "INVALID_INPUT", "after"),
    "malformed session filter": (
        PAGE,
        lambda _: {"filter": {"sessionId": "not valid!"}},
        "INVALID_INPUT",
        "filter.sessionId",
    ),
    "required variable not given": (REMEMBER, lambda _: {}, "INVALID_INPUT", "input"),
    "unused variable": (
        'query($unused: ID) { memory(id: "x") { id } }',
        lambda _: {},
        "GRAPHQL_VALIDATION_FAILED",
        None,
    ),
    "missing argument": (
        "mutation { pin { id } }",
        lambda _: {},
        "GRAPHQL_VALIDATION_FAILED",
        None,
    ),
    "unknown field": (
        '{ memory(id: "x") { mood } }',
        lambda _: {},
        "GRAPHQL_VALIDATION_FAILED",
        None,
    ),
    "syntax error": ("{ memory(id: ", lambda _: {}, "GRAPHQL_PARSE_FAILED", None),
}


@pytest.mark.parametrize("case", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_named_and_nothing_is_written(
    case: Case, gql: GraphQLClient, ids: Ids, graph_snapshot: Callable[[], Any]
) -> None:
    document, variables, code, field = case
    before = graph_snapshot()

    body = gql.execute(document, variables(ids))

    assert len(body["errors"]) == 1, body
    error = body["errors"][0]
    assert error["extensions"].get("code") == code, error
    assert error["extensions"].get("field") == field, error
    if field is not None:
        assert field in error["message"]
    assert not any((body.get("data") or {}).values()), body
    assert graph_snapshot() == before


def test_a_bad_item_in_one_field_does_not_undo_the_others(gql: GraphQLClient, gm: GraphMem) -> None:
    body = gql.execute(
        'mutation { ok: remember(input: {content: "kept"}) { memory { id } } '
        'bad: remember(input: {content: ""}) { memory { id } } }'
    )

    assert [e["extensions"]["field"] for e in body["errors"]] == ["input.content"]
    assert body["data"]["bad"] is None
    assert gm.get(body["data"]["ok"]["memory"]["id"]).content == "kept"


def test_an_unreachable_store_is_reported_without_its_detail(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = EmbeddedFalkorDB(data_dir / "db")
    socket_path = server.start()
    db = FalkorDB(
        unix_socket_path=str(socket_path), socket_timeout=5.0, client_name=server.client_name
    )
    store = FalkorStore(db, "outage")
    store.setup_schema()
    gm = GraphMem(store)
    with serve(create_app(gm)) as http:
        gql = GraphQLClient(http)
        created = gql.data('mutation { remember(input: {content: "x"}) { memory { id } } }')
        assert server.stop()

        with caplog.at_level(logging.ERROR):
            body = gql.execute(
                "query($id: ID!) { memory(id: $id) { id } }",
                {"id": created["remember"]["memory"]["id"]},
            )

    error = body["errors"][0]
    assert error["extensions"] == {"code": "STORE_UNAVAILABLE"}
    assert body["data"] == {"memory": None}
    for detail in (str(data_dir), "redis", "Traceback", "Error "):
        assert detail not in str(body)
    assert str(socket_path) in caplog.text  # the operator still sees where it failed


def test_an_unexpected_failure_is_masked_and_logged(
    refusing_store: tuple[Store, str], caplog: pytest.LogCaptureFixture
) -> None:
    # The database itself rejects the write with an error graphmem does not expect.
    store, cause = refusing_store
    with serve(create_app(GraphMem(store))) as http, caplog.at_level(logging.ERROR):
        body = GraphQLClient(http).execute(
            'mutation { remember(input: {content: "x"}) { memory { id } } }'
        )

    assert body["data"] == {"remember": None}
    message = body["errors"][0]["message"]
    assert re.fullmatch(r"Internal server error \(request id [0-9a-f]{32}\)", message), message
    assert body["errors"] == [
        {
            "message": message,
            "locations": [{"line": 1, "column": 12}],
            "path": ["remember"],
            "extensions": {"code": "INTERNAL"},
        }
    ]
    assert cause not in str(body)
    assert cause in caplog.text
