"""Archive search: archived memories found on request, marked archived, and
restored from the hit; on the Python API, GraphQL, the CLI and MCP, against a
real FalkorDB (and the real embedding model where the surface uses it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import ClientSession

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Tier
from graphmem.settings import Settings
from tests.integration.conftest import GraphQLClient, run_cli
from tests.integration.test_mcp import call, http_server, over_http

DAY = 86_400.0
OLD = "The billing export used the legacy CSV layout with semicolons"
LIVE = "The billing export now writes JSON lines"


def archive_old(gm: GraphMem, clock: ManualClock) -> tuple[str, str]:
    """One memory left stale until archival takes it, one fresh one; their ids."""
    old = gm.remember({"content": OLD, "confidence": 0.6, "tags": ["billing"]})
    clock.advance(2 * DAY)
    live = gm.remember({"content": LIVE, "confidence": 0.9, "memory_type": "decision"})
    assert gm.archive_stale().archived == [old.id]
    return old.id, live.id


def test_search_finds_archived_memories_only_when_asked_and_marks_them(
    egm: GraphMem, clock: ManualClock
):
    old, live = archive_old(egm, clock)

    plain = egm.search("billing export CSV layout")
    assert old not in [h.memory.id for h in plain.hits]
    assert all(not h.archived for h in plain.hits)

    found = egm.search("billing export CSV layout", filters={"include_archived": True})
    by_id = {h.memory.id: h for h in found.hits}
    assert by_id[old].archived is True
    assert by_id[old].memory.archive_reason.startswith("stale")
    assert by_id[live].archived is False
    assert by_id[old].model_dump()["archived"] is True  # what --json and the views carry

    restored = egm.restore(by_id[old].memory.id)
    assert restored.tier is Tier.WORKING
    again = {h.memory.id: h for h in egm.search("billing export CSV layout").hits}
    assert again[old].archived is False


def test_knowledge_context_includes_archived_on_request_without_counting_it(
    egm: GraphMem, clock: ManualClock
):
    old, live = archive_old(egm, clock)

    plain = egm.knowledge_context("billing export CSV layout", record_access=True)
    assert old not in [i.memory.id for i in plain.items]

    asked = egm.knowledge_context("billing export CSV layout", include_archived=True)
    by_id = {i.memory.id: i for i in asked.items}
    assert by_id[old].archived is True and by_id[live].archived is False
    # Shown on request, an archived memory is not counted by it: restoring is its use.
    assert egm.get(old).retrieval_count == 0 and egm.get(old).tier is Tier.ARCHIVED
    assert egm.get(live).retrieval_count == 2


def test_archived_candidates_stay_out_of_context_even_when_archived_ones_are_asked_for(
    egm: GraphMem,
):
    guess = egm.remember(
        {"content": "The billing export might drop rows", "source": "auto_extracted"}
    )
    egm.reject(guess.id, "not reproducible")
    asked = egm.knowledge_context("billing export drop rows", include_archived=True)
    assert guess.id not in [i.memory.id for i in asked.items]
    found = egm.search("billing export drop rows", filters={"include_archived": True})
    (hit,) = [h for h in found.hits if h.memory.id == guess.id]
    assert hit.archived and hit.memory.archive_reason == "rejected: not reproducible"


GQL_CONTEXT = """query($hint: String!, $archived: Boolean!) {
  knowledgeContext(contextHint: $hint, includeArchived: $archived, recordAccess: false) {
    items { archived memory { id tier archiveReason } }
  }
}"""
GQL_SEARCH = """query($q: String!, $archived: Boolean!) {
  search(query: $q, filters: {includeArchived: $archived}) {
    hits { archived memory { id tier } }
  }
}"""
GQL_RESTORE = "mutation($id: ID!) { restore(id: $id) { id tier archivedAt } }"


@pytest.fixture
def gm(egm: GraphMem) -> GraphMem:
    """The server's GraphMem, with embeddings on."""
    return egm


def test_graphql_include_archived_marks_hits_and_restore_brings_one_back(
    gm: GraphMem, gql: GraphQLClient, clock: ManualClock
):
    old, live = archive_old(gm, clock)
    hint = {"hint": "billing export CSV layout"}

    hidden = gql.data(GQL_CONTEXT, {**hint, "archived": False})["knowledgeContext"]["items"]
    assert old not in [i["memory"]["id"] for i in hidden]
    shown = gql.data(GQL_CONTEXT, {**hint, "archived": True})["knowledgeContext"]["items"]
    marks = {i["memory"]["id"]: (i["archived"], i["memory"]["tier"]) for i in shown}
    assert marks[old] == (True, "ARCHIVED") and marks[live] == (False, "WORKING")

    hits = gql.data(GQL_SEARCH, {"q": "billing CSV layout", "archived": True})["search"]["hits"]
    (hit,) = [h for h in hits if h["memory"]["id"] == old]
    assert hit["archived"] is True
    restored = gql.data(GQL_RESTORE, {"id": hit["memory"]["id"]})["restore"]
    assert (restored["tier"], restored["archivedAt"]) == ("WORKING", None)
    hits = gql.data(GQL_SEARCH, {"q": "billing CSV layout", "archived": False})["search"]["hits"]
    assert [h["archived"] for h in hits if h["memory"]["id"] == old] == [False]


def cli(data_dir: Path, *args: str) -> str:
    result = run_cli(data_dir, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cli_search_archived_marks_the_hit_with_the_restore_command(data_dir: Path):
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        guess = gm.remember(
            {"content": "Invoices are rounded per line item", "source": "auto_extracted"}
        )
        gm.reject(guess.id, "rounding is per invoice")

    assert guess.id not in cli(data_dir, "search", "invoices rounded line item")
    shown = cli(data_dir, "search", "invoices rounded line item", "--archived")
    assert guess.id in shown
    assert f"archived: rejected: rounding is per invoice (graphmem restore {guess.id})" in shown

    assert f"restored {guess.id}" in cli(data_dir, "restore", guess.id)
    again = cli(data_dir, "search", "invoices rounded line item")
    assert guess.id in again and "graphmem restore" not in again


def test_mcp_context_include_archived_and_restore_tool(gm: GraphMem, clock: ManualClock):
    old, _ = archive_old(gm, clock)
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            context = await call(
                session,
                "knowledge_context",
                context_hint="billing export CSV layout",
                include_archived=True,
            )
            (item,) = [i for i in context["items"] if i["memory"]["id"] == old]
            assert item["archived"] is True
            assert "restore it before relying on it" in context["context"]
            found = await call(session, "search", query="billing CSV", include_archived=True)
            assert [h["archived"] for h in found["hits"] if h["memory"]["id"] == old] == [True]
            restored = await call(session, "restore", id=old)
            assert restored["tier"] == "working"

        over_http(url, scenario)
    assert gm.get(old).tier is Tier.WORKING
