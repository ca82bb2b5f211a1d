"""The MCP server, talked to by the official MCP client: over stdio, spawning
``python -m graphmem mcp`` on an embedded FalkorDB in a temp directory, and
over streamable HTTP on 127.0.0.1, both in-process and as ``graphmem mcp
--transport http``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import CallToolResult

import graphmem
from graphmem.api import GraphMem
from graphmem.domain.auth import Role
from graphmem.domain.checks import (
    MAX_CONTENT_CHARS,
    MAX_EVIDENCE_ITEMS,
    MAX_PAGE_SIZE,
    MAX_RATIONALE_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from graphmem.domain.clock import ManualClock, to_datetime
from graphmem.domain.kinds import RelationType
from graphmem.domain.retrieval.context import HINT_MAX_CHARS, HINT_MIN_CHARS, MAX_RESULTS
from graphmem.domain.retrieval.search import MAX_DEPTH, MAX_LIMIT
from graphmem.mcp.http import MCP_PATH, create_http_app
from graphmem.mcp.retrieval_tools import MAX_IDS
from graphmem.settings import Settings
from tests.integration.conftest import serve

# A surface suite: what it checks is the surface, the same on every backend; the
# store suites beneath it run on Neo4j as well (tests/conftest.py).
pytestmark = pytest.mark.backends("falkordb")

TOOLS = {
    "knowledge_context",
    "search",
    "remember",
    "record_feedback",
    "pin",
    "relate",
    "supersede",
    "unrelate",
    "forget",
    "review_candidates",
    "restore",
    "undo",
    "record_failure",
    "share",
    "unshare",
    "copy_memory",
    "sharing_events",
    "get_memories",
    "neighborhood",
    "projects",
}
CROSS_PROJECT_TOOLS = {"projects"}
"""Tools about which projects there are: they take no project_id."""
SESSION_LIMIT_S = 60
"""No MCP conversation in these tests may take longer than this."""
REQUEST_TIMEOUT_S = 30


Scenario = Callable[[ClientSession], Awaitable[None]]


# -- helpers -------------------------------------------------------------------


def server_env(data_dir: Path, **more: str) -> dict[str, str]:
    """The caller's environment without GRAPHMEM_* settings but the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(
        GRAPHMEM_DATA_DIR=str(data_dir),
        # No test here needs embeddings; loading the model costs seconds.
        GRAPHMEM_EMBEDDER="none",
        GRAPHMEM_SCHEDULER="false",
        **more,
    )
    return env


def create_key(data_dir: Path, projects: list[str], role: Role) -> str:
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        _, token = gm.keys.create("test agent", projects, role)
    return token


def run_session(open_streams: Callable[[], Any], scenario: Scenario) -> None:
    async def main() -> None:
        with anyio.fail_after(SESSION_LIMIT_S):
            async with (
                open_streams() as (read, write),
                ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT_S) as session,
            ):
                await session.initialize()
                await scenario(session)

    anyio.run(main)


def over_stdio(data_dir: Path, scenario: Scenario, **env: str) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graphmem", "mcp"], env=server_env(data_dir, **env)
    )
    run_session(lambda: stdio_client(params), scenario)


def over_http(url: str, scenario: Scenario, key: str | None = None) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else None

    @asynccontextmanager
    async def streams() -> Any:
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as opened,
        ):
            yield opened

    run_session(streams, scenario)


@contextmanager
def http_server(gm: GraphMem, *, auth: str = "auto") -> Iterator[str]:
    """The HTTP transport on a free 127.0.0.1 port, in this process; yields its URL."""
    settings = Settings(host="127.0.0.1", auth=auth, embedder="none")
    with serve(create_http_app(gm, settings)) as client:
        yield f"{client.base_url}".rstrip("/") + MCP_PATH


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a call that must succeed."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def call_error(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The error of a call that must fail as a tool error (not a protocol error)."""
    result: CallToolResult = await session.call_tool(tool, arguments)
    assert result.is_error, result
    error = (result.structured_content or {})["error"]
    (text,) = [block.text for block in result.content if block.type == "text"]
    assert text == f"error [{error['code']}]: {error['message']}"
    assert "Traceback" not in text
    return error


# -- stdio -------------------------------------------------------------------------


def test_stdio_lists_the_tools_with_the_models_limits(data_dir: Path) -> None:
    schemas: dict[str, Any] = {}

    async def scenario(session: ClientSession) -> None:
        listed = await session.list_tools()
        for tool in listed.tools:
            schemas[tool.name] = (tool.input_schema, tool.output_schema, tool.description)

    over_stdio(data_dir, scenario)

    assert set(schemas) == TOOLS
    for name, (inputs, outputs, description) in schemas.items():
        assert description, name
        assert outputs is not None and outputs["type"] == "object", name
        assert ("project_id" in inputs["properties"]) != (name in CROSS_PROJECT_TOOLS), name
        for prop, spec in inputs["properties"].items():
            assert spec.get("description"), (name, prop)
    props = {name: schema[0]["properties"] for name, schema in schemas.items()}
    required = {name: set(schema[0].get("required", [])) for name, schema in schemas.items()}

    assert props["remember"]["content"]["maxLength"] == MAX_CONTENT_CHARS
    assert props["remember"]["content"]["minLength"] == 1
    assert props["remember"]["tags"]["maxItems"] == MAX_TAGS
    assert props["remember"]["tags"]["items"]["maxLength"] == MAX_TAG_CHARS
    assert props["remember"]["evidence"]["maxItems"] == MAX_EVIDENCE_ITEMS
    assert props["remember"]["confidence"]["minimum"] == 0
    assert props["remember"]["confidence"]["maximum"] == 1
    rationale = props["remember"]["rationale"]["anyOf"][0]
    assert rationale["maxLength"] == MAX_RATIONALE_CHARS
    assert required["remember"] == {"content"}

    hint = props["knowledge_context"]["context_hint"]
    assert (hint["minLength"], hint["maxLength"]) == (HINT_MIN_CHARS, HINT_MAX_CHARS)
    assert props["knowledge_context"]["max_results"]["maximum"] == MAX_RESULTS
    assert required["knowledge_context"] == {"context_hint"}

    assert props["search"]["limit"]["maximum"] == MAX_LIMIT
    assert props["search"]["depth"]["maximum"] == MAX_DEPTH
    assert props["review_candidates"]["first"]["maximum"] == MAX_PAGE_SIZE
    assert props["record_feedback"]["value"]["enum"] == [-1, 0, 1]
    assert required["relate"] == {"from_id", "to_id", "type"}
    assert required["supersede"] == {"old_id", "new_id"}
    assert required["forget"] == required["pin"] == {"id"}
    assert props["get_memories"]["ids"]["maxItems"] == MAX_IDS
    assert required["get_memories"] == {"ids"}
    assert props["neighborhood"]["depth"]["maximum"] == MAX_DEPTH
    assert required["neighborhood"] == {"id"}
    assert "pattern" in props["remember"]["project_id"]["anyOf"][0]
    # Every tool that answers with memories offers them whole; the rest have no full.
    shows_memories = {
        name for name, schema in schemas.items() if "MemoryView" in json.dumps(schema[1])
    }
    assert {"search", "remember", "get_memories", "knowledge_context", "pin"} <= shows_memories
    assert {name for name in schemas if "full" in props[name]} == shows_memories
    assert props["search"]["full"]["default"] is False


def test_stdio_remember_then_recall_and_bad_input(data_dir: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        written = await call(
            session,
            "remember",
            content="Integration tests never call the network",
            memory_type="rule",
            tags=["tests"],
        )
        memory = written["memory"]
        assert written["created"] is True
        # Compact by default: what an agent needs to decide and refer back.
        assert set(memory) == {"id", "content", "memory_type", "tier", "status"}
        assert (memory["tier"], memory["status"], memory["memory_type"]) == (
            "working",
            "active",
            "rule",
        )

        answer = await session.call_tool("search", {"query": "network tests", "mode": "FULLTEXT"})
        found = answer.structured_content or {}
        # The text is the same JSON, without indentation.
        assert [block.text for block in answer.content] == [
            json.dumps(found, ensure_ascii=False, separators=(",", ":"))
        ]
        assert [hit["memory"]["id"] for hit in found["hits"]] == [memory["id"]]
        assert set(found["hits"][0]) == {"memory", "score", "path", "replaces", "archived"}
        whole = await call(session, "search", query="network tests", mode="FULLTEXT", full=True)
        (hit,) = whole["hits"]
        assert hit["retrievers"][0]["retriever"] == "fulltext"
        assert 0 < hit["memory"]["importance"] <= 1
        assert hit["memory"]["tags"] == ["tests"]
        got = await call(session, "get_memories", ids=[memory["id"]], full=True)
        assert got["memories"][0]["created_at"] and got["memories"][0]["tags"] == ["tests"]

        question = "may the integration tests call the network?"
        answer = await session.call_tool("knowledge_context", {"context_hint": question})
        context = answer.structured_content or {}
        # The text content is the block itself, for clients that show only text.
        assert [block.text for block in answer.content] == [context["context"]]
        assert [item["memory"]["id"] for item in context["items"]] == [memory["id"]]
        assert "Integration tests never call the network" in context["context"]
        assert (
            f"- [rule] Integration tests never call the network (memory {memory['id']})"
            in (context["context"])
        )
        assert "components" not in context["items"][0]
        whole = await call(session, "knowledge_context", context_hint=question, full=True)
        assert whole["context"] == context["context"]
        assert sum(whole["items"][0]["components"].values()) == pytest.approx(
            whole["items"][0]["score"]
        )

        too_long = await call_error(session, "remember", content="x" * (MAX_CONTENT_CHARS + 1))
        assert too_long["code"] == "INVALID_INPUT"
        assert too_long["field"] == "content"
        assert str(MAX_CONTENT_CHARS) in too_long["message"]

        nul = await call_error(session, "remember", content="half\x00written")
        assert (nul["code"], nul["field"]) == ("INVALID_INPUT", "content")

        tags = await call_error(session, "remember", content="ok", tags=["t"] * (MAX_TAGS + 1))
        assert (tags["code"], tags["field"]) == ("INVALID_INPUT", "tags")
        assert str(MAX_TAGS) in tags["message"]

        hint = await call_error(session, "knowledge_context", context_hint="ab")
        assert (hint["field"], hint["code"]) == ("context_hint", "INVALID_INPUT")
        assert str(HINT_MIN_CHARS) in hint["message"]

        # Nothing was half-written by the rejected calls.
        everything = await call(session, "search", query="ok half written x", mode="FULLTEXT")
        assert everything["hits"] == []

    over_stdio(data_dir, scenario)


def test_stdio_acts_with_the_key_in_graphmem_api_key(data_dir: Path) -> None:
    key = create_key(data_dir, ["alpha"], Role.WRITE)

    async def scenario(session: ClientSession) -> None:
        written = await call(session, "remember", content="Alpha deploys on Fridays")
        assert written["created"] is True
        # The key's only project is where a call that names none acts.
        forbidden = await call_error(
            session, "search", query="deploys", project_id="beta", mode="FULLTEXT"
        )
        assert forbidden["code"] == "FORBIDDEN"
        assert forbidden["field"] == "project_id"
        assert "beta" in forbidden["message"]
        found = await call(session, "search", query="deploys", project_id="alpha")
        assert len(found["hits"]) == 1

    over_stdio(data_dir, scenario, GRAPHMEM_API_KEY=key)

    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert [m.content for m in gm.list(project_id="alpha").items] == [
            "Alpha deploys on Fridays"
        ]
        assert gm.list(project_id="default").items == []


def test_stdio_refuses_to_start_with_an_unknown_key(data_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", "mcp"],
        env=server_env(data_dir, GRAPHMEM_API_KEY="gmk_not-a-key"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=SESSION_LIMIT_S,
    )
    assert done.returncode == 1
    assert "UNAUTHENTICATED" in done.stderr
    assert done.stdout == ""


# -- HTTP, in this process ---------------------------------------------------------


def test_http_tools_end_to_end(gm: GraphMem, graph_snapshot: Callable[[], Any]) -> None:
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            rule = (
                await call(
                    session,
                    "remember",
                    content="Never store card numbers in logs",
                    memory_type="rule",
                )
            )["memory"]
            task = (await call(session, "remember", content="Add request logging to checkout"))[
                "memory"
            ]
            guess = (
                await call(
                    session,
                    "remember",
                    content="Checkout latency comes from the card vault",
                    source="auto_extracted",
                )
            )["memory"]
            assert guess["status"] == "candidate"

            relation = await call(
                session,
                "relate",
                from_id=rule["id"],
                to_id=task["id"],
                type="CONSTRAINS",
                rationale="PCI",
            )
            assert relation == {
                "type": "CONSTRAINS",
                "from_id": rule["id"],
                "to_id": task["id"],
                "rationale": "PCI",
                "weight": 1.0,
            }
            # The rule that constrains a hit comes with it, and says how.
            found = await call(session, "search", query="request logging checkout", depth=1)
            by_id = {hit["memory"]["id"]: hit for hit in found["hits"]}
            assert rule["id"] in by_id
            path = by_id[rule["id"]]["path"]
            assert path["seed_id"] == task["id"]
            assert path["steps"][0]["type"] == "CONSTRAINS"

            queue = await call(session, "review_candidates")
            assert [item["memory"]["id"] for item in queue["items"]] == [guess["id"]]
            assert queue["next_cursor"] is None
            pinned = await call(session, "pin", id=guess["id"], full=True)
            assert (pinned["pinned"], pinned["status"]) == (True, "active")
            assert (await call(session, "review_candidates"))["items"] == []

            rated = await call(session, "record_feedback", id=task["id"], value=1)
            assert rated["id"] == task["id"]
            bad_value = await call_error(session, "record_feedback", id=task["id"], value=2)
            assert (bad_value["code"], bad_value["field"]) == ("INVALID_INPUT", "value")

            newer = (await call(session, "remember", content="Add structured logging to checkout"))[
                "memory"
            ]
            replaced = await call(
                session, "supersede", old_id=task["id"], new_id=newer["id"], rationale="rescoped"
            )
            assert (replaced["type"], replaced["from_id"], replaced["to_id"]) == (
                "SUPERSEDES",
                newer["id"],
                task["id"],
            )
            context = await call(
                session, "knowledge_context", context_hint="add logging to checkout"
            )
            ids = [item["memory"]["id"] for item in context["items"]]
            assert newer["id"] in ids and task["id"] not in ids

            gone = await call(session, "forget", id=guess["id"])
            assert gone == {"id": guess["id"], "forgotten": True}
            missing = await call_error(session, "pin", id=guess["id"])
            assert (missing["code"], missing["field"]) == ("NOT_FOUND", "id")
            assert missing["message"].startswith("id:")

            before = graph_snapshot()
            cycle = await call_error(session, "supersede", old_id=newer["id"], new_id=task["id"])
            assert cycle["code"] == "CONFLICT"
            weight = await call_error(
                session, "relate", from_id=rule["id"], to_id=task["id"], type="ENABLES", weight=2
            )
            assert (weight["code"], weight["field"]) == ("INVALID_INPUT", "weight")
            assert graph_snapshot() == before

        over_http(url, scenario)


def iso(at: float) -> str:
    moment = to_datetime(at)
    assert moment is not None
    return moment.isoformat()


def test_http_reads_memories_by_id_and_walks_their_neighbourhood(
    gm: GraphMem, clock: ManualClock
) -> None:
    before = iso(clock.now())
    clock.advance(60)
    rule = gm.remember({"content": "Never store card numbers in logs", "memory_type": "rule"})
    task = gm.remember({"content": "Add request logging to checkout"})
    audit = gm.remember({"content": "Auditors read the checkout logs monthly"})
    gm.relate(rule.id, task.id, RelationType.CONSTRAINS)
    gm.relate(task.id, audit.id, RelationType.ENABLES)
    elsewhere = gm.remember({"content": "Beta keeps its own logs"}, project_id="beta")
    missing_id = "0000000000000000nonexistent"
    with http_server(gm) as url:

        async def scenario(session: ClientSession) -> None:
            read = await call(
                session, "get_memories", ids=[task.id, missing_id, rule.id, elsewhere.id, task.id]
            )
            # Found ones in the order asked, once each; the others are simply left out.
            assert [m["id"] for m in read["memories"]] == [task.id, rule.id]
            assert read["memories"][1]["content"] == "Never store card numbers in logs"
            assert read["memories"][1]["memory_type"] == "rule"
            beta = await call(session, "get_memories", ids=[elsewhere.id], project_id="beta")
            assert [m["content"] for m in beta["memories"]] == ["Beta keeps its own logs"]
            then = await call(session, "get_memories", ids=[task.id, rule.id], as_of=before)
            assert then["memories"] == []

            hood = await call(session, "neighborhood", id=task.id)
            assert (hood["center_id"], hood["depth"], hood["truncated"]) == (task.id, 1, False)
            assert hood["nodes"][0]["id"] == task.id
            assert {n["id"] for n in hood["nodes"]} == {task.id, rule.id, audit.id}
            assert sorted((e["from_id"], e["type"], e["to_id"]) for e in hood["edges"]) == sorted(
                [(rule.id, "CONSTRAINS", task.id), (task.id, "ENABLES", audit.id)]
            )
            near = await call(session, "neighborhood", id=rule.id)
            assert {n["id"] for n in near["nodes"]} == {rule.id, task.id}
            far = await call(session, "neighborhood", id=rule.id, depth=2)
            assert {n["id"] for n in far["nodes"]} == {rule.id, task.id, audit.id}
            enables = await call(session, "neighborhood", id=task.id, relation_types=["ENABLES"])
            assert {n["id"] for n in enables["nodes"]} == {task.id, audit.id}
            assert [e["type"] for e in enables["edges"]] == ["ENABLES"]
            unwritten = await call(session, "neighborhood", id=task.id, as_of=before)
            assert (unwritten["nodes"], unwritten["edges"]) == ([], [])

            for depth in (0, MAX_DEPTH + 1):
                bad = await call_error(session, "neighborhood", id=task.id, depth=depth)
                assert (bad["code"], bad["field"]) == ("INVALID_INPUT", "depth")
            assert str(MAX_DEPTH) in bad["message"]
            too_many = await call_error(session, "get_memories", ids=[task.id] * (MAX_IDS + 1))
            assert (too_many["code"], too_many["field"]) == ("INVALID_INPUT", "ids")
            assert str(MAX_IDS) in too_many["message"]
            future = await call_error(
                session, "get_memories", ids=[task.id], as_of=iso(clock.now() + 86_400)
            )
            assert (future["code"], future["field"]) == ("INVALID_INPUT", "as_of")
            gone = await call_error(session, "neighborhood", id=missing_id)
            assert (gone["code"], gone["field"]) == ("NOT_FOUND", "id")
            other = await call_error(session, "neighborhood", id=elsewhere.id)
            assert other["code"] == "NOT_FOUND"

        over_http(url, scenario)


def test_http_reads_by_id_show_an_agent_bound_key_no_other_agents_private_memory(
    gm: GraphMem, clock: ManualClock
) -> None:
    ana = gm.as_agent("ana")
    secret = ana.remember({"content": "Ana's draft of the rollout", "visibility": "private"})
    plan = ana.remember({"content": "The rollout plan everyone follows", "visibility": "shared"})
    ana.relate(secret.id, plan.id, RelationType.RELATED_TO)
    ben = gm.keys.create("ben", ["default"], Role.READ, agent_id="ben")[1]
    anas = gm.keys.create("ana", ["default"], Role.READ, agent_id="ana")[1]
    missing_id = "0000000000000000nonexistent"
    clock.advance(60)
    now = iso(clock.now())
    with http_server(gm) as url:

        async def as_ben(session: ClientSession) -> None:
            # Now, and as the store stood a minute after (its history: another read path).
            for at in ({}, {"as_of": now}):
                read = await call(session, "get_memories", ids=[secret.id, plan.id], **at)
                assert [m["id"] for m in read["memories"]] == [plan.id]
                hood = await call(session, "neighborhood", id=plan.id, **at)
                assert [n["id"] for n in hood["nodes"]] == [plan.id]
                assert hood["edges"] == []
                hidden = await call_error(session, "neighborhood", id=secret.id, **at)
                absent = await call_error(session, "neighborhood", id=missing_id, **at)
                assert hidden["code"] == absent["code"] == "NOT_FOUND"
                assert hidden["message"].replace(secret.id, missing_id) == absent["message"]

        async def as_ana(session: ClientSession) -> None:
            read = await call(session, "get_memories", ids=[secret.id, plan.id])
            assert [m["id"] for m in read["memories"]] == [secret.id, plan.id]
            hood = await call(session, "neighborhood", id=plan.id, as_of=now)
            assert {n["id"] for n in hood["nodes"]} == {plan.id, secret.id}
            assert [e["type"] for e in hood["edges"]] == ["RELATED_TO"]

        over_http(url, as_ben, key=ben)
        over_http(url, as_ana, key=anas)


def test_http_key_scope_and_role(gm: GraphMem) -> None:
    writer = gm.keys.create("writer", ["alpha"], Role.WRITE)[1]
    reader = gm.keys.create("reader", ["alpha", "gamma"], Role.READ)[1]
    gm.remember({"content": "Delta keeps its own notes"}, project_id="delta")
    with http_server(gm) as url:

        async def as_writer(session: ClientSession) -> None:
            # A key's project with nothing in it yet is not listed; others never are.
            assert await call(session, "projects") == {"projects": []}
            written = await call(session, "remember", content="Alpha uses blue-green deploys")
            assert written["created"] is True
            forbidden = await call_error(
                session, "remember", content="Beta secret", project_id="beta"
            )
            assert (forbidden["code"], forbidden["field"]) == ("FORBIDDEN", "project_id")
            also = await call_error(
                session, "knowledge_context", context_hint="deploys", project_id="beta"
            )
            assert also["code"] == "FORBIDDEN"

        async def as_reader(session: ClientSession) -> None:
            assert await call(session, "projects") == {"projects": ["alpha"]}
            found = await call(session, "search", query="deploys", project_id="alpha")
            assert [h["memory"]["content"] for h in found["hits"]] == [
                "Alpha uses blue-green deploys"
            ]
            refused = await call_error(
                session, "remember", content="Readers cannot write", project_id="alpha"
            )
            assert refused["code"] == "FORBIDDEN"
            assert "write" in refused["message"]

        async def open_access(session: ClientSession) -> None:
            assert await call(session, "projects") == {"projects": ["alpha", "delta"]}

        over_http(url, as_writer, key=writer)
        over_http(url, as_reader, key=reader)
        over_http(url, open_access)

    assert [m.content for m in gm.list(project_id="alpha").items] == [
        "Alpha uses blue-green deploys"
    ]
    assert gm.list(project_id="beta").items == []


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def post_initialize(url: str, token: str | None = None) -> httpx.Response:
    headers = dict(MCP_HEADERS)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=REQUEST_TIMEOUT_S)


def test_http_rejects_bad_and_revoked_keys_and_requires_one_when_told(gm: GraphMem) -> None:
    key, token = gm.keys.create("soon revoked", ["alpha"], Role.READ)
    with http_server(gm) as url:
        assert post_initialize(url).status_code == 200  # loopback, not required: open
        assert post_initialize(url, token).status_code == 200
        wrong = post_initialize(url, "gmk_wrong")
        assert wrong.status_code == 401
        assert wrong.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert wrong.headers["www-authenticate"].startswith("Bearer")
        malformed = httpx.post(
            url, json=INITIALIZE, headers={**MCP_HEADERS, "authorization": "Basic eDp5"}
        )
        assert malformed.status_code == 401
        gm.keys.revoke(key.id)
        assert post_initialize(url, token).status_code == 401

    with http_server(gm, auth="required") as url:
        missing = post_initialize(url)
        assert missing.status_code == 401
        assert "Bearer" in missing.json()["errors"][0]["message"]
        assert (
            post_initialize(url, gm.keys.create("live", ["alpha"], Role.READ)[1]).status_code == 200
        )


# -- HTTP, as the command runs it ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_graphmem_mcp_http_command_requires_keys_when_told(data_dir: Path) -> None:
    token = create_key(data_dir, ["alpha"], Role.WRITE)
    port = free_port()
    url = f"http://127.0.0.1:{port}{MCP_PATH}"
    server = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "mcp", "--transport", "http", "--port", str(port)],
        env=server_env(data_dir, GRAPHMEM_AUTH="required"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + SESSION_LIMIT_S
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        assert server.poll() is None, server.communicate()

        assert post_initialize(url).status_code == 401

        async def scenario(session: ClientSession) -> None:
            listed = await session.list_tools()
            assert {tool.name for tool in listed.tools} == TOOLS
            written = await call(session, "remember", content="Served over MCP HTTP")
            assert written["memory"]["content"] == "Served over MCP HTTP"

        over_http(url, scenario, key=token)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            out, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            out, err = server.communicate()
    assert server.returncode == 0, err
    assert b"API keys required" in err
    assert out == b""
    # The write outlived the server.
    with GraphMem.open(Settings(data_dir=data_dir, embedder="none")) as gm:
        assert [m.content for m in gm.list(project_id="alpha").items] == ["Served over MCP HTTP"]


def test_the_server_reports_graphmems_version(gm: GraphMem) -> None:
    with http_server(gm) as url:
        response = post_initialize(url)
    assert response.status_code == 200
    if response.headers["content-type"].startswith("text/event-stream"):
        (data,) = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        answer = json.loads(data)
    else:
        answer = response.json()
    info = answer["result"]["serverInfo"]
    assert (info["name"], info["version"]) == ("graphmem", graphmem.__version__)
    assert graphmem.__version__ == metadata.version("graphmem")


def test_http_on_a_busy_port_says_so_in_one_line(data_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "graphmem", "mcp", "--transport", "HTTP", "--port", str(port)],
            env=server_env(data_dir),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    # The holder is named: this test's own process, which listens there.
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"error: port {port} is in use on 127.0.0.1; it is pid {os.getpid()} ("
    ), line
    assert line.endswith(
        f"): stop it (Ctrl-C where it runs, or kill {os.getpid()}), or choose another "
        f"port: set GRAPHMEM_MCP_PORT={port + 1} or pass --port {port + 1}"
    ), line
    assert not (data_dir / "falkordb.sock").exists(), "the database started for nothing"


def test_graphql_mcp_and_the_client_give_the_same_prompt_block(gm: GraphMem, gql: Any) -> None:
    """knowledgeContext { context } over a real server is the MCP tool's text,
    and what the remote client's result renders, for the same query."""
    gm.remember(
        {
            "content": "Never store card numbers in logs",
            "memory_type": "rule",
            "rationale": "PCI scope",
        }
    )
    gm.remember({"content": "Checkout logging goes through the structured logger"})
    hint = "add request logging to checkout"
    query = """query($hint: String!, $budget: Int!) {
      knowledgeContext(contextHint: $hint, recordAccess: false) { context(budgetTokens: $budget)
                                                                  items { memory { id } } }
    }"""
    found = gql.data(query, {"hint": hint, "budget": 1000})["knowledgeContext"]
    block = found["context"]
    assert block.startswith("Memories from graphmem") and "  why: PCI scope" in block
    assert all(f"(memory {item['memory']['id']})" in block for item in found["items"])
    texts: list[str] = []

    async def scenario(session: ClientSession) -> None:
        answer = await session.call_tool(
            "knowledge_context", {"context_hint": hint, "record_access": False}
        )
        texts.extend(part.text for part in answer.content if part.type == "text")

    with http_server(gm) as url:
        over_http(url, scenario)
    assert texts == [block]
    with graphmem.Client(f"{gql.http.base_url}".rstrip("/") + "/graphql") as client:
        remote = client.knowledge_context(hint, record_access=False)
    assert remote.prompt_block() == block

    short = gql.data(query, {"hint": hint, "budget": 50})["knowledgeContext"]["context"]
    assert short is not None and len(short) <= 50 * 4 < len(block)
    error = gql.error(query, {"hint": hint, "budget": 10})
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["message"] == "budgetTokens: must be between 50 and 2400 tokens, got 10"
