"""``python -m benchmarks.mcp_sizes``: how many tokens each MCP tool's typical
answer costs an agent.

A few memories are written into a temporary embedded store (embeddings off:
the sizes do not depend on them), then each tool is called once as an agent
would, in the process, through the MCP SDK's client connected to the server. A figure is
the tokens of the answer's text (what a client hands the model), estimated as
the project estimates them everywhere (4 characters a token:
graphmem.domain.retrieval.prompt), and of its structured content as compact
JSON; with ``full`` (where the tool offers it) the same for the whole record.
Run it on an older checkout (``PYTHONPATH=that checkout``) for the figures
before a change: a tool without ``full`` shows ``-`` there.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from rich.console import Console
from rich.table import Table

from graphmem.api import GraphMem
from graphmem.mcp.server import create_server
from graphmem.settings import Settings

CHARS_PER_TOKEN = 4
"""graphmem.domain.retrieval.prompt's estimate, repeated so that the script runs
on a checkout older than that module."""

MEMORIES = (
    ("Never store card numbers in logs; mask them at the edge", "rule"),
    ("Use Postgres row locks for the ledger: settling payments must not race", "decision"),
    ("Checkout latency comes from the card vault's cold start", "lesson_learned"),
    ("Request logging in checkout goes through the structured logger", "convention"),
    ("The payments service deploys on Tuesdays only", "fact"),
)


def tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def sizes(result: Any) -> tuple[int, int]:
    """Tokens of an answer's text and of its structured content as compact JSON."""
    text = "".join(block.text for block in result.content if block.type == "text")
    structured = json.dumps(result.structured_content or {}, separators=(",", ":"))
    return tokens(text), tokens(structured)


async def measure(gm: GraphMem) -> list[tuple[str, tuple[int, int], tuple[int, int] | None]]:
    async with Client(create_server(gm)) as client:
        listed = (await client.list_tools()).tools
        offered = {t.name: "full" in t.input_schema.get("properties", {}) for t in listed}
        return await _calls(client, gm, offered)


async def _calls(
    client: Client, gm: GraphMem, offered: dict[str, bool]
) -> list[tuple[str, tuple[int, int], tuple[int, int] | None]]:
    """Each tool's answer to a typical call, compact and (where offered) full."""
    ids = [gm.remember({"content": text, "memory_type": kind}).id for text, kind in MEMORIES]
    gm.relate(ids[0], ids[3], "CONSTRAINS", rationale="PCI")
    new = "Card vault tokens expire after {} minutes"
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("knowledge_context", "knowledge_context", {"context_hint": "add logging to checkout"}),
        ("search", "search", {"query": "checkout logging card", "limit": 5}),
        ("remember (new)", "remember", {"content": new.format(15)}),
        ("remember (restated)", "remember", {"content": MEMORIES[0][0]}),
        ("get_memories (3)", "get_memories", {"ids": ids[:3]}),
        ("neighborhood", "neighborhood", {"id": ids[0]}),
        ("record_feedback", "record_feedback", {"id": ids[1], "value": 1}),
        ("pin", "pin", {"id": ids[2]}),
        ("relate", "relate", {"from_id": ids[1], "to_id": ids[4], "type": "RELATED_TO"}),
        ("record_failure", "record_failure", {"error": "vault timeout", "tool": "Bash"}),
    ]
    rows = []
    for label, name, arguments in calls:
        compact = sizes(await client.call_tool(name, arguments))
        if not offered[name]:
            rows.append((label, compact, None))
            continue
        if arguments.get("content") == new.format(15):
            # A new memory again, not the same one counted twice.
            arguments = {**arguments, "content": new.format(30)}
        rows.append(
            (label, compact, sizes(await client.call_tool(name, {**arguments, "full": True})))
        )
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(data_dir=Path(directory), embedder="none")
        with GraphMem.open(settings) as gm:
            rows = anyio.run(measure, gm)
    out = Table(title="MCP answer sizes, tokens (characters / 4)")
    for column in ("tool", "text", "structured", "text, full", "structured, full"):
        out.add_column(column, justify="left" if column == "tool" else "right")
    for label, (text, structured), full in rows:
        shown = [str(n) for n in full] if full else ["-", "-"]
        out.add_row(label, str(text), str(structured), *shown)
    Console().print(out)


if __name__ == "__main__":
    main()
