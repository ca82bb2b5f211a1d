"""validFrom/validTo and asOf on every surface: GraphQL over a real server, the
remote client, the command line and MCP over HTTP say what the Python API says."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from graphmem import Client, GraphMem, ManualClock
from graphmem.domain.errors import InvalidInputError
from graphmem.graphql.app import create_app
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, serve
from tests.integration.conftest import run_cli as cli
from tests.integration.test_mcp import call, call_error, http_server, over_http

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

HOUR = 3_600.0


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


@pytest.fixture
def history(gm: GraphMem, clock: ManualClock) -> dict[str, Any]:
    """K1 written, then superseded an hour later by K2; a related note between."""
    start = clock.now()
    old = gm.remember({"content": "the billing key is K1", "memory_type": "fact"})
    clock.advance(HOUR)
    note = gm.remember({"content": "billing runs nightly", "memory_type": "fact"})
    gm.relate(note.id, old.id, "RELATED_TO")
    clock.advance(HOUR)
    new = gm.remember({"content": "the billing key is K2", "memory_type": "fact"})
    gm.supersede(old.id, new.id)
    clock.advance(HOUR)
    return {"start": start, "old": old.id, "note": note.id, "new": new.id}


MEMORIES = """query($at: DateTime) {
  memories(asOf: $at, first: 10) { edges { node { id tier validFrom validTo supersededBy } } }
}"""


def test_graphql_answers_as_of_and_names_asof_in_the_future(
    gql: GraphQLClient, history: dict[str, Any], clock: ManualClock
) -> None:
    before = history["start"] + HOUR + 60
    listed = gql.data(MEMORIES, {"at": iso(before)})["memories"]["edges"]
    assert {e["node"]["id"] for e in listed} == {history["old"], history["note"]}
    now = gql.data(MEMORIES, {"at": None})["memories"]["edges"]
    old = next(e["node"] for e in now if e["node"]["id"] == history["old"])
    assert old["validTo"] == iso(history["start"] + 2 * HOUR).replace("+00:00", "+00:00")
    assert old["supersededBy"] == history["new"]
    one = gql.data(
        "query($id: ID!, $at: DateTime) { memory(id: $id, asOf: $at) { id supersededBy } }",
        {"id": history["old"], "at": iso(before)},
    )["memory"]
    assert one == {"id": history["old"], "supersededBy": None}
    missing = gql.data(
        "query($id: ID!, $at: DateTime) { memory(id: $id, asOf: $at) { id } }",
        {"id": history["new"], "at": iso(before)},
    )
    assert missing["memory"] is None
    hood = gql.data(
        """query($id: ID!, $at: DateTime) {
          neighborhood(id: $id, asOf: $at) { nodes { id } edges { type fromId toId } }
        }""",
        {"id": history["old"], "at": iso(before)},
    )["neighborhood"]
    assert {n["id"] for n in hood["nodes"]} == {history["old"], history["note"]}
    found = gql.data(
        """query($at: DateTime) {
          search(query: "billing key", mode: FULLTEXT, minRelevance: 0, asOf: $at) {
            hits { memory { id } }
          }
          knowledgeContext(contextHint: "billing key", minRelevance: 0, asOf: $at) {
            items { memory { id } }
          }
        }""",
        {"at": iso(before)},
    )
    assert history["new"] not in {h["memory"]["id"] for h in found["search"]["hits"]}
    assert history["old"] in {h["memory"]["id"] for h in found["search"]["hits"]}
    assert history["old"] in {i["memory"]["id"] for i in found["knowledgeContext"]["items"]}
    error = gql.error(MEMORIES, {"at": iso(clock.now() + 2 * HOUR)})
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["extensions"]["field"] == "asOf"
    assert error["message"].startswith("asOf:")
    early = gql.data(MEMORIES, {"at": "2001-01-01T00:00:00Z"})["memories"]["edges"]
    assert early == []


def test_graphql_takes_validity_on_remember_and_update(
    gql: GraphQLClient, clock: ManualClock
) -> None:
    start, end = clock.now() - 10 * HOUR, clock.now() - HOUR
    made = gql.data(
        """mutation($from: DateTime, $to: DateTime) {
          remember(input: {content: "the VPN key is V1", validFrom: $from, validTo: $to}) {
            memory { id validFrom validTo }
          }
        }""",
        {"from": iso(start), "to": iso(end)},
    )["remember"]["memory"]
    assert (made["validFrom"], made["validTo"]) == (iso(start), iso(end))
    error = gql.error(
        """mutation($id: ID!, $to: DateTime) {
          updateMemory(id: $id, input: {validTo: $to}) { id }
        }""",
        {"id": made["id"], "to": iso(start - HOUR)},
    )
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert "validTo" in error["extensions"]["field"]


@pytest.fixture
def client(gm: GraphMem) -> Iterator[Client]:
    with serve(create_app(gm)) as http, Client(str(http.base_url)) as client:
        yield client


def test_the_remote_client_answers_as_the_python_api(
    gm: GraphMem, client: Client, history: dict[str, Any], clock: ManualClock
) -> None:
    at = history["start"] + HOUR + 60
    here = gm.list(as_of=at).items
    there = client.list(as_of=at).items
    assert [m.id for m in there] == [m.id for m in here]
    assert client.get(history["old"], as_of=at).superseded_by is None
    assert client.get_many([history["new"]], as_of=at) == [None]
    assert {n.id for n in client.neighborhood(history["old"], as_of=at).nodes} == {
        n.id for n in gm.neighborhood(history["old"], as_of=at).nodes
    }
    hits = client.search("billing key", mode="FULLTEXT", min_relevance=0.0, as_of=at).hits
    assert {h.memory.id for h in hits} == {
        h.memory.id
        for h in gm.search("billing key", mode="FULLTEXT", min_relevance=0.0, as_of=at).hits
    }
    assert client.get(history["old"]).valid_to == gm.get(history["old"]).valid_to
    with pytest.raises(InvalidInputError) as error:
        client.list(as_of=clock.now() + 2 * HOUR)
    assert error.value.field == "asOf"


def test_the_command_line_lists_and_shows_as_of(data_dir: Path) -> None:
    written = cli(
        data_dir,
        "remember",
        "the staging key is S1",
        "--valid-from",
        "2024-01-01T00:00:00Z",
        "--valid-to",
        "2024-03-01T00:00:00Z",
    )
    assert written.exit_code == 0, written.output
    assert "2024-03-01" in written.output
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        (memory,) = gm.list().items
        created = memory.created_at
    listed = cli(data_dir, "list", "--as-of", iso(created + 1))
    assert listed.exit_code == 0, listed.output
    assert "no memories match" in listed.output  # it had stopped holding in March 2024
    shown = cli(data_dir, "show", memory.id, "--as-of", iso(created + 1))
    assert shown.exit_code == 0, shown.output
    assert "valid_to" in shown.output and "2024-03-01" in shown.output
    ahead = cli(data_dir, "list", "--as-of", "2999-01-01T00:00:00Z")
    assert ahead.exit_code != 0
    assert "as_of" in ahead.output and "future" in ahead.output
    bad = cli(data_dir, "remember", "x", "--valid-from", "2024-03-01", "--valid-to", "2024-01-01")
    assert bad.exit_code != 0 and "valid_to" in bad.output


def test_mcp_remembers_validity_and_answers_as_of(gm: GraphMem, clock: ManualClock) -> None:
    old = gm.remember({"content": "the deploy token is T1", "memory_type": "fact"})
    clock.advance(HOUR)
    at = clock.now()
    clock.advance(HOUR)

    async def scenario(session: ClientSession) -> None:
        made = await call(
            session,
            "remember",
            content="the deploy token is T2",
            valid_from=iso(at + 60),
            full=True,
        )
        assert made["memory"]["valid_from"] == iso(at + 60)
        assert made["memory"]["valid_to"] is None
        context = await call(
            session,
            "knowledge_context",
            context_hint="deploy token",
            min_relevance=0.0,
            as_of=iso(at),
        )
        ids = {i["memory"]["id"] for i in context["items"]}
        assert ids == {old.id}
        found = await call(
            session,
            "search",
            query="deploy token",
            mode="FULLTEXT",
            min_relevance=0.0,
            as_of=iso(at),
        )
        assert {h["memory"]["id"] for h in found["hits"]} == {old.id}
        error = await call_error(
            session, "search", query="deploy token", as_of=iso(clock.now() + 2 * HOUR)
        )
        assert error["code"] == "INVALID_INPUT" and error["field"] == "as_of"

    with http_server(gm) as url:
        over_http(url, scenario)
