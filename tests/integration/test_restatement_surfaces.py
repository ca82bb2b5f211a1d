"""Every surface reports which outcome a remember had: GraphQL over HTTP, the MCP
tool over HTTP, and the CLI, each on a real graph (near matches by token
overlap: these servers run without embeddings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import ClientSession

from graphmem.api import GraphMem
from tests.integration.conftest import GraphQLClient
from tests.integration.test_cli import MEMORY_ID, cli, remember
from tests.integration.test_mcp import call, http_server, over_http

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

PORT_8000 = "The billing API server in production listens on port 8000"
PORT_9000 = "The billing API server in production listens on port 9000"
RETRY = "retry the payment webhook three times with jitter"
NO_RETRY = "do not retry the payment webhook three times with jitter"
REWORDED = "retry payment webhook three times with jitter"

REMEMBER = """
mutation Remember($input: MemoryInput!) {
  remember(input: $input) {
    memory { id status variants conflictsWith conflictReason supersededBy }
    created match outcome relatedId reason
  }
}"""
QUEUE = "{ reviewQueue(first: 10) { edges { node { memory { id conflictsWith } } } } }"
GET = "query($id: ID!) { memory(id: $id) { supersededBy variants } }"


def test_graphql_reports_each_outcome(gql: GraphQLClient) -> None:
    def remember_(content: str) -> dict:
        return gql.data(REMEMBER, {"input": {"content": content}})["remember"]

    created = remember_(PORT_8000)
    assert (created["outcome"], created["relatedId"], created["reason"]) == ("CREATED", None, None)
    old = created["memory"]["id"]

    update = remember_(PORT_9000)
    assert (update["outcome"], update["relatedId"], update["created"]) == ("SUPERSEDED", old, True)
    assert update["reason"] == "number differs: 8000 -> 9000"
    assert gql.data(GET, {"id": old})["memory"]["supersededBy"] == update["memory"]["id"]

    retry = remember_(RETRY)["memory"]["id"]
    flagged = remember_(NO_RETRY)
    assert (flagged["outcome"], flagged["relatedId"]) == ("FLAGGED_CONFLICT", retry)
    assert flagged["memory"]["status"] == "CANDIDATE"
    assert flagged["memory"]["conflictsWith"] == retry
    assert flagged["memory"]["conflictReason"] == flagged["reason"]
    queued = gql.data(QUEUE)["reviewQueue"]["edges"]
    assert {"id": flagged["memory"]["id"], "conflictsWith": retry} in [
        edge["node"]["memory"] for edge in queued
    ]

    near = remember_(REWORDED)
    assert (near["outcome"], near["match"], near["memory"]["id"]) == ("MERGED_NEAR", "NEAR", retry)
    assert near["memory"]["variants"] == [REWORDED]
    exact = remember_(RETRY)
    assert (exact["outcome"], exact["match"]) == ("MERGED_EXACT", "EXACT")


def test_mcp_remember_reports_each_outcome(gm: GraphMem) -> None:
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            first = await call(session, "remember", content=PORT_8000)
            assert (first["outcome"], first["related_id"]) == ("created", None)
            update = await call(session, "remember", content=PORT_9000)
            assert update["outcome"] == "superseded"
            assert update["related_id"] == first["memory"]["id"]
            assert update["reason"] == "number differs: 8000 -> 9000"
            retry = await call(session, "remember", content=RETRY)
            flagged = await call(session, "remember", content=NO_RETRY, full=True)
            assert flagged["outcome"] == "flagged_conflict"
            assert flagged["memory"]["conflicts_with"] == retry["memory"]["id"]
            near = await call(session, "remember", content=REWORDED)
            assert (near["outcome"], near["match"]) == ("merged_near", "near")

        over_http(url, scenario)


def test_cli_remember_says_what_happened(data_dir: Path) -> None:
    old = remember(data_dir, PORT_8000)
    update = cli(data_dir, "remember", PORT_9000)
    assert update.exit_code == 0, update.output
    assert "supersedes an older value" in update.stdout
    new, related = MEMORY_ID.findall(update.stdout)
    assert related == old and new != old
    assert "number differs: 8000 -> 9000" in update.stdout

    retry = remember(data_dir, RETRY)
    flagged = cli(data_dir, "remember", NO_RETRY)
    assert "may contradict a memory" in flagged.stdout
    assert MEMORY_ID.findall(flagged.stdout)[1] == retry
    near = cli(data_dir, "remember", REWORDED)
    assert "Already known (near match: same statement)" in near.stdout
    assert MEMORY_ID.findall(near.stdout) == [retry]
