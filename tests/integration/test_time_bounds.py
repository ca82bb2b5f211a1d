"""Times a write takes are times every surface can show, and a stored time that
cannot be shown (raw Cypher, an older version) never fails a read.

graphmem stores times from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z
(``graphmem.domain.clock``): a day inside what a date holds, so each has a
calendar date in every zone. Before the bound, ``occurredAt:
"0001-01-01T00:00:00+14:00"`` was stored, answered INTERNAL, and then failed
every later listing, search and context of the project.
"""

from __future__ import annotations

import io
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from graphmem.api import GraphMem
from graphmem.client import Client, StoredTimeWarning
from graphmem.domain.clock import EARLIEST, LATEST, ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import RelationType
from graphmem.graphql.app import create_app
from graphmem.services.transfer import export_project, import_project
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import GraphQLClient, Rejected, run_cli, serve
from tests.integration.test_mcp import call_error, http_server, over_http

OUT_OF_RANGE = [
    "0001-01-01T00:00:00+14:00",
    "0001-01-01T00:00:00+01:00",
    "0001-01-01T23:59:59Z",
    "9999-12-31T23:59:59-14:00",
    "9999-12-31T00:00:00Z",
    -1e300,
    2**63,
    -(2**63),
]
"""Times past either bound, zone offsets included; the numbers are epoch seconds
or, above 10^11, milliseconds."""

REMEMBER = """
mutation ($input: MemoryInput!) {
  remember(input: $input) { memory { id occurredAt validFrom validTo } }
}"""
UPDATE = """
mutation ($id: ID!, $changes: MemoryUpdateInput!) {
  updateMemory(id: $id, input: $changes) { id validFrom validTo }
}"""
READS = {
    "memories": "{ memories(first: 50) { edges { node { id occurredAt validTo createdAt } } } }",
    "search FULLTEXT": '{ search(query: "ledger", mode: FULLTEXT) { hits { score } } }',
    "search HYBRID": '{ search(query: "ledger", mode: HYBRID) { hits { score } } }',
    "search VECTOR": '{ search(query: "ledger", mode: VECTOR) { hits { score } } }',
    "search GRAPH": '{ search(query: "ledger", mode: GRAPH) { hits { memory { id } } } }',
    "knowledgeContext": """{ knowledgeContext(contextHint: "the ledger database", minRelevance: 0)
                             { items { memory { id occurredAt } } } }""",
}


@pytest.fixture
def graphql_http_embedded(egm: GraphMem) -> Iterator[GraphQLClient]:
    """GraphQL over HTTP on a store with embeddings, so VECTOR and HYBRID search run."""
    with serve(create_app(egm)) as http:
        yield GraphQLClient(http)


@pytest.mark.backends("falkordb")  # refused before the store is asked
@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize("field", ["occurredAt", "validFrom", "validTo"])
def test_graphql_refuses_a_time_no_surface_can_show(rejected: Rejected, field: str, value: Any):
    error = rejected(
        REMEMBER,
        {"input": {"content": "the ledger runs on Postgres", field: value}},
        "INVALID_INPUT",
        f"input.{field}",
    )
    assert "0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z" in error["message"], error


@pytest.mark.parametrize("field", ["validFrom", "validTo"])
def test_an_update_refuses_it_and_changes_nothing(gm: GraphMem, rejected: Rejected, field: str):
    memory = gm.remember({"content": "the ledger runs on Postgres"})
    rejected(
        UPDATE,
        {"id": memory.id, "changes": {field: "0001-01-01T00:00:00+14:00"}},
        "INVALID_INPUT",
        f"input.{field}",
    )


def test_the_bounds_themselves_are_taken_and_read_back(graphql_http_embedded: GraphQLClient):
    gql = graphql_http_embedded
    written = gql.data(
        REMEMBER,
        {
            "input": {
                "content": "the ledger opened",
                "occurredAt": "0001-01-02T00:00:00Z",
                "validTo": "9999-12-30T23:59:59Z",
            }
        },
    )["remember"]["memory"]
    assert written["occurredAt"] == "0001-01-02T00:00:00+00:00"
    assert written["validTo"] == "9999-12-30T23:59:59+00:00"
    for read in READS.values():
        gql.data(read)


@pytest.mark.backends("falkordb")
@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_the_python_api_refuses_it_naming_the_field(gm: GraphMem, value: Any):
    with pytest.raises(InvalidInputError) as error:
        gm.remember({"content": "the ledger runs on Postgres", "occurred_at": value})
    assert error.value.field == "occurred_at"
    with pytest.raises(InvalidInputError) as error:
        gm.search("ledger", filters={"occurred_after": value})
    assert error.value.field == "filters.occurred_after", error.value.message
    assert gm.list().items == []


def test_mcp_refuses_it_naming_the_field(gm: GraphMem):
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            for value in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
                error = await call_error(
                    session, "remember", content="the ledger runs on Postgres", occurred_at=value
                )
                assert (error["code"], error["field"]) == ("INVALID_INPUT", "occurred_at"), error

        over_http(url, scenario)
    assert gm.list().items == []


def test_the_cli_refuses_it_naming_the_option(data_dir: Path):
    result = run_cli(
        data_dir,
        "remember",
        "the ledger runs on Postgres",
        "--occurred-at",
        "0001-01-01T00:00:00+14:00",
    )
    assert result.exit_code != 0
    assert "occurred" in result.output and "0001-01-02T00:00:00Z" in result.output, result.output
    assert "Traceback" not in result.output


def test_an_import_refuses_it_and_writes_nothing(gm: GraphMem, store: Store, graph_snapshot):
    gm.remember({"content": "the ledger runs on Postgres"})
    out = io.StringIO()
    export_project(store, "default", out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    for line in lines:
        if line["kind"] == "memory":
            line["props"]["occurred_at"] = EARLIEST - 86_400
    before = graph_snapshot()
    text = "".join(json.dumps(line) + "\n" for line in lines)
    report = import_project(store, io.StringIO(text), project_id="copy")
    assert not report.complete
    assert any("props.occurred_at" in line.reason for line in report.skipped), report
    assert graph_snapshot() == before


# -- a stored time no write would take -----------------------------------------------


def _tampered(gm: GraphMem, store: Store) -> tuple[str, str]:
    """Two memories about the ledger, one of them related to the other, and the
    first given times past both bounds by raw Cypher, as an older version or a
    hand-written statement could have left them."""
    bad = gm.remember({"content": "the ledger database is Postgres 16"})
    good = gm.remember({"content": "the ledger database is backed up nightly"})
    gm.relate(bad.id, good.id, RelationType.RELATED_TO)
    cypher(
        store,
        "MATCH (m:Memory {id: $id}) SET m.occurred_at = $early, m.valid_to = $late",
        {"id": bad.id, "early": EARLIEST - 86_400 * 400, "late": LATEST * 10},
    )
    return bad.id, good.id


def test_every_read_serves_the_page_and_names_the_memory(
    egm: GraphMem, store: Store, graphql_http_embedded: GraphQLClient
):
    bad, good = _tampered(egm, store)
    for name, read in READS.items():
        body = graphql_http_embedded.execute(read)
        assert body.get("data"), (name, body)
        codes = [e["extensions"]["code"] for e in body.get("errors", [])]
        assert set(codes) <= {"STORED_TIME_OUT_OF_RANGE"}, (name, body)
    body = graphql_http_embedded.execute(READS["memories"])
    (notice,) = body["errors"]
    assert notice["extensions"]["memoryId"] == bad
    assert notice["extensions"]["fields"] == ["occurredAt", "validTo"]
    assert "graphmem migrate" in notice["message"]
    nodes = {edge["node"]["id"]: edge["node"] for edge in body["data"]["memories"]["edges"]}
    assert set(nodes) == {bad, good}, "the rest of the page is served"
    assert nodes[bad]["occurredAt"] == "0001-01-02T00:00:00+00:00"
    assert nodes[bad]["validTo"] == "9999-12-30T23:59:59+00:00"


def test_the_client_serves_the_answer_with_a_warning(gm: GraphMem, store: Store, graphql_http):
    bad, good = _tampered(gm, store)
    with (
        Client(str(graphql_http.base_url)) as client,
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        memories = client.get_many([bad, good])
    assert [m.id for m in memories if m is not None] == [bad, good]
    assert [w.category for w in caught] == [StoredTimeWarning]
    assert bad in str(caught[0].message)


def test_the_evaluator_finds_the_row_and_migrate_repairs_it(
    gm: GraphMem, store: Store, clock: ManualClock
):
    bad, _ = _tampered(gm, store)
    report = gm.evaluate()
    (found,) = [f for f in report.findings if f.code == "TIME_OUT_OF_RANGE"]
    assert found.memory_ids == (bad,)
    repaired = [r for r in gm.migrate() if r.changed]
    assert [r.changed for r in repaired] == [1]
    memory = gm.get(bad)
    assert (memory.occurred_at, memory.valid_to) == (EARLIEST, LATEST)
    assert memory.unshowable_times() == []
    assert not [f for f in gm.evaluate().findings if f.code == "TIME_OUT_OF_RANGE"]
    assert [r for r in gm.migrate() if r.changed] == [], "a second run finds nothing to repair"
