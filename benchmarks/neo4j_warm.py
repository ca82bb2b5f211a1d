"""``python -m benchmarks.neo4j_warm [--rounds N] [--neo4j-uri URI]``: a fresh
server's first knowledgeContext on Neo4j against its tenth, without and with
the store warm-up a server runs before it listens (graphmem.server.warming).

Each server is a process of its own on a store of ``MEMORIES`` memories, its
model warmed as ``graphmem serve`` warms it; before each, Neo4j's query caches
are cleared, so every statement is planned again as on a Neo4j that has just
started. ``cold`` skips the store warm-up (what a server did before it had
one), ``warm`` runs it. Each request is a fresh connection, as the prompt
hook's are. Prints the first and tenth request's latency of each (the median
over the rounds) and their ratio.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated

import httpx
import typer
from rich.table import Table

from benchmarks.load import CONTEXT, HINTS
from benchmarks.neo4j_server import (
    Neo4jPasswordOption,
    Neo4jTarget,
    Neo4jUriOption,
    Neo4jUserOption,
)
from benchmarks.report import console

ROOT = Path(__file__).resolve().parents[1]
MEMORIES = 200
REQUESTS = 10
MODES = ("cold", "warm")


def fill(target: Neo4jTarget) -> None:
    """``MEMORIES`` memories in the default project, embedded by the default model."""
    from graphmem.api import GraphMem

    with GraphMem.open(target.settings) as gm:
        for n in range(MEMORIES):
            subject = HINTS[n % len(HINTS)]
            content = f"{subject}: rule {n} says to check the dashboard before step {n % 7}"
            gm.remember({"content": content})


def one_server(mode: str) -> None:
    """In a child process: open the store the environment names, warm it as
    ``mode`` says, serve it, print its URL and serve until stdin closes."""
    from graphmem.api import GraphMem
    from graphmem.graphql.app import create_app
    from graphmem.server import serving
    from graphmem.settings import Settings

    settings = Settings()
    with GraphMem.open(settings) as gm:
        if mode == "warm":
            with serving.running(gm, settings), serving.in_thread(create_app(gm, settings)) as url:
                _serve_until_eof(url)
        else:
            gm.warm()
            with serving.in_thread(create_app(gm, settings)) as url:
                _serve_until_eof(url)


def _serve_until_eof(url: str) -> None:
    print(url, flush=True)
    sys.stdin.read()


def measure(target: Neo4jTarget, mode: str) -> list[float]:
    """The latencies (ms) of a fresh server's first ``REQUESTS`` knowledgeContexts."""
    target.raw.run("CALL db.clearQueryCaches()")
    password = target.settings.neo4j.password
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "GRAPHMEM_BACKEND": "neo4j",
        "GRAPHMEM_NEO4J_URI": target.uri,
        "GRAPHMEM_NEO4J_USER": target.settings.neo4j.user,
        "GRAPHMEM_NEO4J_PASSWORD": password.get_secret_value() if password else "",
        "GRAPHMEM_NEO4J_DATABASE": target.database or "",
        "GRAPHMEM_SCHEDULER": "false",
    }
    child_main = one_server.__name__
    code = f"from benchmarks.neo4j_warm import {child_main}; {child_main}({mode!r})"
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        url = child.stdout.readline().strip()
        if not url:
            raise SystemExit(f"the {mode} server did not start")
        return [_context(url, f"{HINTS[n % len(HINTS)]} {n}") for n in range(REQUESTS)]
    finally:
        if child.stdin:
            child.stdin.close()
        child.wait(timeout=120)


def _context(url: str, hint: str) -> float:
    with httpx.Client(base_url=url, timeout=120.0) as http:
        started = time.perf_counter()
        response = http.post("/graphql", json={"query": CONTEXT, "variables": {"hint": hint}})
        elapsed = (time.perf_counter() - started) * 1000
    body = response.json()
    if "errors" in body or not body["data"]["knowledgeContext"]["items"]:
        raise SystemExit(f"knowledgeContext answered nothing: {json.dumps(body)[:500]}")
    return elapsed


def main(
    rounds: Annotated[int, typer.Option(help="Fresh servers of each mode (alternating).")] = 3,
    neo4j_uri: Neo4jUriOption = None,
    neo4j_user: Neo4jUserOption = "neo4j",
    neo4j_password: Neo4jPasswordOption = None,
) -> None:
    """Measure a fresh Neo4j-backed server's first and tenth knowledgeContext."""
    out = console(stderr=True)
    target = Neo4jTarget(neo4j_uri, user=neo4j_user, password=neo4j_password, log=out.print)
    try:
        target.fresh()
        out.print(f"filling {MEMORIES} memories")
        fill(target)
        runs: dict[str, list[list[float]]] = {mode: [] for mode in MODES}
        for n in range(rounds):
            for mode in MODES:
                runs[mode].append(measure(target, mode))
                out.print(
                    f"round {n + 1} {mode}: " + " ".join(f"{ms:.0f}" for ms in runs[mode][-1])
                )
    finally:
        target.close()
    table = Table(title=f"a fresh server's knowledgeContext on Neo4j (ms, median of {rounds})")
    for column in ("store warm-up", "first", f"request {REQUESTS}", "first / tenth"):
        table.add_column(column, justify="right")
    for mode, latencies in runs.items():
        first = statistics.median(run[0] for run in latencies)
        tenth = statistics.median(run[-1] for run in latencies)
        table.add_row(
            "no (before)" if mode == "cold" else "yes",
            f"{first:.0f}",
            f"{tenth:.0f}",
            f"{first / tenth:.1f}",
        )
    out.print(table)
    out.print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    typer.run(main)
