"""``python -m benchmarks.lifecycle``: promotion, the scheduler and dedup at scale.

Figures, each beside a baseline measured in the same run:

- evaluate + promote over one session of N working items, against one raw
  Cypher scan that reads the properties scoring needs;
- ``memory(id)`` p95 over GraphQL/HTTP with the periodic scheduler running
  for S active sessions, against the same server with the scheduler off;
- ``remember`` throughput with dedup on, into a project of N memories,
  against the same writes with dedup off (alternating batches).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Annotated, Any

import httpx
import typer

from benchmarks.data import generate
from benchmarks.harness import PROJECT, BenchEnv, BenchError, environ
from benchmarks.report import Figure, console, table, to_json

RAW_SCAN = (
    "MATCH (m:Memory {session_id: $session}) WHERE m.project_id = $project "
    "RETURN m.id, m.tier, m.memory_type, m.content, m.confidence, m.access_count, "
    "m.last_accessed_at, m.created_at, m.feedback, m.feedback_count, m.self_assessment, "
    "m.suggested_by, m.superseded_by"
)
READ_QUERY = "query Read($id: ID!) { memory(id: $id) { id content tier status importance } }"
BIG_SESSION = "big-session"


def load(env: BenchEnv, n: int, *, session: str | None = None, batch: int = 5_000) -> list[str]:
    """N realistic memories through the Python API (dedup off: a bulk load)."""
    items = generate(n, seed=n).memories
    if session is not None:
        items = [{**item, "session_id": session, "source": "agent"} for item in items]
    ids: list[str] = []
    for start in range(0, n, batch):
        ids += env.gm.remember_many(items[start : start + batch], dedup=False)
    return ids


def promotion_at_scale(env: BenchEnv, n: int) -> list[Figure]:
    env.gm.open_session(BIG_SESSION, max_items=1_000_000)
    env.gm.disable_promotion(BIG_SESSION)
    load(env, n, session=BIG_SESSION)
    # Spread usage so scores differ the way they do in a live store.
    env.gm.store._graph.query(
        "MATCH (m:Memory {session_id: $s}) SET m.access_count = toInteger(rand() * 12), "
        "m.last_accessed_at = m.created_at - rand() * 7200",
        {"s": BIG_SESSION},
    )
    scan = _best_of(
        3,
        lambda: env.gm.store._graph.ro_query(
            RAW_SCAN, {"session": BIG_SESSION, "project": PROJECT}
        ),
    )
    dry = _best_of(3, lambda: env.gm.run_promotion(BIG_SESSION, dry_run=True))
    started = time.perf_counter()
    result = env.gm.run_promotion(BIG_SESSION)
    run_s = time.perf_counter() - started
    if result.count == 0:
        raise BenchError("the promotion run promoted nothing: the data did not score")
    return [
        Figure(
            key="promotion_run_s",
            name=f"evaluate + promote, one session of {n:,} working items",
            value=run_s,
            unit="s",
            baseline=scan,
            ratio=run_s / scan,
            target="<= 3 s and <= 3x raw scan",
            passed=run_s <= 3.0 and run_s / scan <= 3.0,
            count=n,
        ),
        Figure(
            key="promotion_evaluate_s",
            name="evaluate only (dry run)",
            value=dry,
            unit="s",
            baseline=scan,
            ratio=dry / scan,
            count=n,
        ),
    ]


def scheduler_load(
    env: BenchEnv, sessions: int, requests: int, max_seconds: float, rounds: int
) -> list[Figure]:
    """The scheduler's periodic runs must not slow the request path."""
    per_session = 5
    items = generate(sessions * per_session, seed=3).memories
    for i, item in enumerate(items):
        item["session_id"] = f"live-{i % sessions:04d}"
    ids: list[str] = []
    for start in range(0, len(items), 5_000):
        ids += env.gm.remember_many(items[start : start + 5_000], dedup=False)
    # Alternate the modes over several rounds: the machine's own load drifts.
    figures: dict[str, list[float]] = {"false": [], "true": []}
    p95s: dict[str, list[float]] = {"false": [], "true": []}
    for _ in range(rounds):
        for scheduler in ("false", "true"):
            # Every session is due at once when the server starts: the busiest moment.
            env.gm.store._graph.query("MATCH (s:Session) SET s.next_promotion_at = null")
            settings = {
                "GRAPHMEM_SCHEDULER": scheduler,
                "GRAPHMEM_PROMOTION_INTERVAL_SECONDS": "30",
            }
            with environ(**settings), env.served() as url:
                samples = _read_latencies(url, ids, requests, max_seconds)
            figures[scheduler] += samples
            p95s[scheduler].append(_p(samples, 95))
    runs = env.gm.store._graph.ro_query("MATCH (r:PromotionRun) RETURN count(r)").result_set[0][0]
    on, off = figures["true"], figures["false"]
    p95_on, p95_off = statistics.median(p95s["true"]), statistics.median(p95s["false"])
    return [
        Figure(
            key="scheduler_read_p95",
            name=f"memory(id) p95 (median of {rounds} rounds), scheduler on, "
            f"{sessions:,} sessions ({runs:,} runs)",
            value=p95_on,
            unit="ms",
            baseline=p95_off,
            ratio=p95_on / p95_off,
            target="<= 1.5x scheduler off",
            passed=p95_on / p95_off <= 1.5,
            count=len(on),
        ),
        Figure(
            key="scheduler_read_p50",
            name="memory(id) p50 with the scheduler on",
            value=_p(on, 50),
            unit="ms",
            baseline=_p(off, 50),
            ratio=_p(on, 50) / _p(off, 50),
            count=len(on),
        ),
    ]


def dedup_throughput(env: BenchEnv, n: int, writes: int, batch: int) -> list[Figure]:
    load(env, n)
    fresh = generate(2 * writes, seed=n + 1).memories
    # Distinct texts: every item is checked, none is skipped by a merge.
    for i, item in enumerate(fresh):
        item["content"] = f"{item['content']} (#{i})"
    timings: dict[bool, float] = {True: 0.0, False: 0.0}
    halves = {True: fresh[:writes], False: fresh[writes:]}
    for start in range(0, writes, batch):
        for dedup in (True, False) if (start // batch) % 2 else (False, True):
            chunk = halves[dedup][start : start + batch]
            began = time.perf_counter()
            env.gm.remember_many(chunk, dedup=dedup)
            timings[dedup] += time.perf_counter() - began
    on, off = writes / timings[True], writes / timings[False]
    return [
        Figure(
            key="dedup_throughput",
            name=f"remember with dedup on, project of {n:,}",
            value=on,
            unit="memories/s",
            baseline=off,
            ratio=off / on,
            target=">= 70% of dedup off",
            passed=on >= 0.7 * off,
            count=writes,
        )
    ]


def _read_latencies(url: str, ids: list[str], requests: int, max_seconds: float) -> list[float]:
    rng = random.Random(5)
    samples: list[float] = []
    deadline = time.monotonic() + max_seconds
    with httpx.Client(base_url=url, timeout=10.0) as client:
        for number in range(requests + 100):
            if time.monotonic() > deadline:
                break
            memory_id = rng.choice(ids)
            began = time.perf_counter()
            response = client.post(
                "/graphql", json={"query": READ_QUERY, "variables": {"id": memory_id}}
            )
            elapsed = (time.perf_counter() - began) * 1000
            body = response.json()
            if body.get("errors") or body["data"]["memory"]["id"] != memory_id:
                raise BenchError(f"read failed: {body}")
            if number >= 100:
                samples.append(elapsed)
    if len(samples) < 20:
        raise BenchError("too few reads were timed: raise --max-seconds")
    return samples


def _p(samples: list[float], rank: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[rank - 1]


def _best_of(times: int, work: Any) -> float:
    best = float("inf")
    for _ in range(times):
        began = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - began)
    return best


def main(
    n: Annotated[
        int, typer.Option(min=100, max=1_000_000, help="Memories in the big session / project.")
    ] = 100_000,
    sessions: Annotated[
        int, typer.Option(min=1, max=10_000, help="Active sessions for the scheduler figure.")
    ] = 1_000,
    requests: Annotated[
        int, typer.Option(min=20, max=100_000, help="Reads per scheduler phase.")
    ] = 3_000,
    writes: Annotated[
        int, typer.Option(min=100, max=100_000, help="Memories written per dedup mode.")
    ] = 10_000,
    batch: Annotated[int, typer.Option(min=1, max=5_000)] = 1_000,
    max_seconds: Annotated[
        float, typer.Option(min=1, max=600, help="Time limit of each read phase.")
    ] = 60.0,
    rounds: Annotated[int, typer.Option(min=1, max=10, help="Scheduler off/on rounds.")] = 3,
    only: Annotated[str, typer.Option(help="promotion, scheduler, dedup or all")] = "all",
    json: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
) -> None:
    """Measure promotion, the scheduler and dedup against same-run baselines."""
    out = console(stderr=json)
    figures: list[Figure] = []
    try:
        if only in ("all", "promotion"):
            with BenchEnv() as env, out.status("promotion at scale..."):
                figures += promotion_at_scale(env, n)
        if only in ("all", "scheduler"):
            with BenchEnv() as env, out.status("scheduler under load..."):
                figures += scheduler_load(env, sessions, requests, max_seconds, rounds)
        if only in ("all", "dedup"):
            with BenchEnv() as env, out.status("dedup throughput..."):
                figures += dedup_throughput(env, n, writes, batch)
    except BenchError as exc:
        out.print(f"[red]benchmark failed:[/] {exc}")
        raise typer.Exit(1) from None
    out.print(table(figures, title="graphmem lifecycle benchmark"))
    if json:
        typer.echo(to_json(figures, {"n": n, "sessions": sessions}))


if __name__ == "__main__":
    typer.run(main)
