"""``python -m benchmarks.first_request [--before PATH]``: the server's first request
and the CLI's wall time, as a person meets them.

For this checkout, and for earlier ones given with ``--before`` (each run with
its own code, in the same run, on the same machine):

- ready: seconds from starting ``graphmem serve`` to ``/readyz`` answering 200
  (to ``/healthz`` answering, for a checkout without ``/readyz``);
- the first knowledgeContext after that (it needs a query embedding), then
  the median of the next twenty, on a store of fifty memories;
- ``graphmem search`` wall time (a fresh ``python -m graphmem`` process) while
  the server runs, then after it stopped: the median of three each.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.table import Table

from benchmarks.load import CONTEXT, HINTS, REMEMBER
from benchmarks.report import console
from benchmarks.server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[1]
MEMORIES = 50
LATER = 20
CLI_RUNS = 3


def measure(tree: Path) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmfirst-"))
    # PYTHONSAFEPATH: the working directory is not put first on the path, so each
    # process imports the checkout named by PYTHONPATH.
    env = {"PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1", "GRAPHMEM_SCHEDULER": "false"}
    server = ServerProcess(data_dir, env=env)
    try:
        started = time.perf_counter()
        server.start()
        with httpx.Client(base_url=server.url, timeout=120.0) as http:
            _wait_ready(http)
            ready_s = time.perf_counter() - started
            first_ms = _context(http, HINTS[0])
            for n in range(MEMORIES):
                variables = {"input": {"content": f"the billing service rule number {n}"}}
                http.post("/graphql", json={"query": REMEMBER, "variables": variables})
            later = [_context(http, HINTS[n % len(HINTS)] + f" {n}") for n in range(LATER)]
        cli_env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "PYTHONSAFEPATH": "1",
            "GRAPHMEM_DATA_DIR": str(data_dir),
            "HF_HUB_OFFLINE": "1",
        }
        with_server = [_cli_search(cli_env) for _ in range(CLI_RUNS)]
        server.terminate()
        without_server = [_cli_search(cli_env) for _ in range(CLI_RUNS)]
    finally:
        server.__exit__(None, None, None)
        shutil.rmtree(data_dir, ignore_errors=True)
    return {
        "ready_s": ready_s,
        "first_ms": first_ms,
        "later_p50_ms": statistics.median(later),
        "search_with_server_s": statistics.median(with_server),
        "search_without_server_s": statistics.median(without_server),
    }


def _wait_ready(http: httpx.Client, timeout_s: float = 120.0) -> None:
    """Until ``/readyz`` says ready; a checkout without it is ready once it answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if http.get("/readyz").status_code in (200, 404):
            return
        time.sleep(0.02)
    raise SystemExit("the server did not get ready in time")


def _context(http: httpx.Client, hint: str) -> float:
    started = time.perf_counter()
    response = http.post("/graphql", json={"query": CONTEXT, "variables": {"hint": hint}})
    elapsed = (time.perf_counter() - started) * 1000
    body = response.json()
    if "errors" in body:
        raise SystemExit(f"knowledgeContext failed: {body['errors']}")
    return elapsed


def _cli_search(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "graphmem", "search", "billing service rules"],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main(
    before: Annotated[
        list[Path] | None,
        typer.Option(help="An earlier checkout to measure beside this one; repeat for more."),
    ] = None,
) -> None:
    """Measure the first request after the server is ready and the CLI's wall time."""
    out = console(stderr=True)
    trees = {tree.resolve().name: tree.resolve() for tree in before or []}
    trees["this checkout"] = ROOT
    results = {name: measure(tree) for name, tree in trees.items()}
    table = Table(title="first request and CLI wall time")
    table.add_column("figure")
    for name in results:
        table.add_column(name, justify="right")
    rows = (
        ("serve: start to ready (s)", "ready_s", "{:.2f}"),
        ("first knowledgeContext after ready (ms)", "first_ms", "{:.0f}"),
        (f"knowledgeContext, median of the next {LATER} (ms)", "later_p50_ms", "{:.0f}"),
        ("graphmem search, server running (s)", "search_with_server_s", "{:.2f}"),
        ("graphmem search, no server (s)", "search_without_server_s", "{:.2f}"),
    )
    for label, key, shape in rows:
        table.add_row(label, *(shape.format(r[key]) for r in results.values()))
    out.print(table)
    out.print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    typer.run(main)
