"""``python -m benchmarks.inject``: the wall time of the ``graphmem inject`` hook.

A coding agent runs the hook as a fresh process on every prompt, so what
counts is the whole process: interpreter start, imports, the lookup, the
output. Each figure runs the real ``graphmem`` script with a UserPromptSubmit
event on stdin, ``--runs`` times, and checks every answer names the memory
the prompt is about (a hook that answers fast and wrong measures nothing):

- with ``graphmem serve`` running (embeddings on, as in use): the server path;
- with no server, the database already running (another process holds it):
  the fallback on full text;
- with no server and no database, with ``--fallback start``: the fallback
  starting the database and stopping it again.

Baselines from the same run: ``python -c pass`` (the interpreter alone), and
the interpreter with the HTTP client the server path cannot do without.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import httpx
import typer

from benchmarks.data import generate
from benchmarks.harness import GRAPH, HOST, PROJECT, BenchEnv, BenchError
from benchmarks.report import Figure, console, table, to_json
from graphmem.api import GraphMem
from graphmem.settings import Settings

TARGET_P95_MS = 150.0
PROMPT = "why does the ledger need Postgres row locks when we settle payments?"
ANSWER = "Use Postgres row locks for the ledger: settling payments must not race"
GRAPHMEM = str(Path(sys.executable).with_name("graphmem"))
HOOK_TIMEOUT_S = 30.0
WARM_UP_TIMEOUT_S = 120.0


def main(
    runs: Annotated[int, typer.Option(min=5, max=500, help="Hook runs per figure.")] = 50,
    memories: Annotated[
        int, typer.Option(min=10, max=20_000, help="Memories in the store besides the answer.")
    ] = 2_000,
    json_out: Annotated[
        bool, typer.Option("--json", help="Also print the figures as JSON on stdout.")
    ] = False,
) -> None:
    if not Path(GRAPHMEM).exists():
        raise BenchError(f"no graphmem script beside {sys.executable}: pip install -e .")
    out = console(stderr=json_out)
    figures: list[Figure] = []
    event = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "session_id": "bench"}
    ).encode()

    bare = _times([sys.executable, "-c", "pass"], runs, b"", check=None)
    floor = _times([sys.executable, "-c", "import json, urllib.request"], runs, b"", check=None)
    figures += _pair("python_pass", "python -c pass (baseline)", bare, None, runs)
    figures += _pair("import_floor", "python -c 'import json, urllib.request'", floor, bare, runs)

    with BenchEnv() as env:
        memory_id = _fill(env.gm, memories)
        hook_env = _hook_env(env.data_dir)
        with env.served() as url:
            _warm_up(f"{url}/graphql")
            served = _times(
                [GRAPHMEM, "inject"],
                runs,
                event,
                check=memory_id,
                env={**hook_env, "GRAPHMEM_URL": f"{url}/graphql"},
            )
        figures += _pair("served", "hook, server running", served, bare, runs, target=True)
        # The server is gone; this process still holds the database open, so the
        # default fallback reads it.
        with _no_server() as refused:
            warm = _times(
                [GRAPHMEM, "inject"], runs, event, check=memory_id, env={**hook_env, **refused}
            )
        figures += _pair("fallback_warm", "hook, no server, database up", warm, bare, runs)

    with _cold_store(memories) as (data_dir, cold_id), _no_server() as refused:
        cold = _times(
            [GRAPHMEM, "inject", "--fallback", "start"],
            max(5, runs // 5),
            event,
            check=cold_id,
            env={**_hook_env(data_dir), **refused},
        )
    figures += _pair("fallback_cold", "hook, no server, database down", cold, bare, len(cold))

    load = os.getloadavg()[0]
    title = f"graphmem inject ({memories:,} memories, {runs} runs, load average {load:.1f})"
    out.print(table(figures, title=title))
    if json_out:
        info = {"runs": runs, "memories": memories, "load_average": load}
        sys.stdout.write(to_json(figures, info) + "\n")


@contextmanager
def _no_server() -> Iterator[dict[str, str]]:
    """A local port that refuses connections at once: bound here and never
    listened on, so no other process can take it during the runs."""
    with socket.socket() as held:
        held.bind((HOST, 0))
        yield {"GRAPHMEM_URL": f"http://{HOST}:{held.getsockname()[1]}/graphql"}


def _warm_up(url: str) -> None:
    """One query before timing: the server loads the embedding model on its first."""
    query = "query($h: String!) { knowledgeContext(contextHint: $h) { candidates } }"
    response = httpx.post(
        url, json={"query": query, "variables": {"h": PROMPT}}, timeout=WARM_UP_TIMEOUT_S
    )
    if response.status_code != 200 or "errors" in response.json():
        raise BenchError(f"the server did not answer knowledgeContext: {response.text[:300]}")


def _hook_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_DATA_DIR=str(data_dir), GRAPHMEM_GRAPH=GRAPH, GRAPHMEM_PROJECT=PROJECT)
    return env


def _fill(gm: GraphMem, n: int) -> str:
    """A store of ``n`` generated memories and the one the prompt is about."""
    dataset = generate(n)
    for start in range(0, n, 1_000):
        gm.remember_many(dataset.memories[start : start + 1_000], project_id=PROJECT)
    answer = gm.remember(
        {"content": ANSWER, "memory_type": "decision", "confidence": 0.9}, project_id=PROJECT
    )
    return answer.id


@contextmanager
def _cold_store(n: int) -> Iterator[tuple[Path, str]]:
    """A data directory with a store in it and no database running."""
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gminject-"))
    try:
        settings = Settings(data_dir=data_dir, graph=GRAPH, project=PROJECT, embedder="none")
        with GraphMem.open(settings) as gm:
            memory_id = _fill(gm, n)
        yield data_dir, memory_id
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _times(
    command: list[str],
    runs: int,
    stdin: bytes,
    *,
    check: str | None,
    env: dict[str, str] | None = None,
) -> list[float]:
    """Wall milliseconds of ``runs`` runs; each answer must mention ``check``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            command, input=stdin, capture_output=True, env=env, timeout=HOOK_TIMEOUT_S
        )
        times.append((time.perf_counter() - started) * 1000.0)
        if done.returncode != 0 or (check is not None and check not in done.stdout.decode()):
            raise BenchError(
                f"{' '.join(command)} answered wrongly (status {done.returncode}): "
                f"{done.stdout.decode()[:300]!r} {done.stderr.decode()[:300]!r}"
            )
    return times


def _pair(
    key: str,
    name: str,
    times: list[float],
    baseline: list[float] | None,
    count: int,
    *,
    target: bool = False,
) -> list[Figure]:
    """p50 and p95 of one series, each beside the same percentile of the baseline."""
    figures = []
    for label, pick in (("p50", _p50), ("p95", _p95)):
        value = pick(times)
        base = pick(baseline) if baseline else None
        checked = target and label == "p95"
        figures.append(
            Figure(
                key=f"{key}_{label}",
                name=f"{name} {label}",
                value=value,
                unit="ms",
                baseline=base,
                ratio=value / base if base else None,
                target=f"<= {TARGET_P95_MS:.0f} ms" if checked else None,
                passed=value <= TARGET_P95_MS if checked else None,
                count=count,
            )
        )
    return figures


def _p50(values: list[float]) -> float:
    return statistics.median(values)


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


if __name__ == "__main__":
    typer.run(main)
