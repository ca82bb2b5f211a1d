"""Sustained mixed load on a real ``graphmem serve`` over HTTP.

``python -m benchmarks.load --clients 16 --seconds 60``

``--servers 2`` starts that many server processes on the one data directory
(and so one database), each client sending to one of them in turn: whether
more Python processes serve more than one does.

A pool of concurrent asyncio clients sends the mix an agent fleet sends
(remember 30%, knowledgeContext 40%, search 20%, recordAccess 10%) for a
fixed time or request count, whichever ends first, to a server in a child
process on 127.0.0.1 with the production defaults (embeddings on, scheduler
on). The same pool first measures ``/healthz`` for a few seconds: that
baseline is the cost of HTTP and the server loop alone on this machine right
now, and each operation is reported as a ratio to it.

The run fails if any request fails, or if the store does not hold exactly
what was acknowledged: one memory per created write, and occurrences adding
up to every acknowledged remember.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from falkordb import FalkorDB
from prometheus_client.parser import text_string_to_metric_families

from benchmarks import recorded
from benchmarks.report import Figure
from benchmarks.server_process import ServerProcess
from graphmem.store.embedded import SOCKET_NAME

OPERATIONS = {"remember": 0.3, "knowledgeContext": 0.4, "search": 0.2, "recordAccess": 0.1}
BASELINE = "healthz"
REMEMBER = """
mutation ($input: MemoryInput!) { remember(input: $input) { created memory { id } } }
"""
CONTEXT = """
query ($hint: String!) {
  knowledgeContext(contextHint: $hint, maxResults: 5, minConfidence: 0.0) {
    items { memory { id } score }
  }
}
"""
SEARCH = "query ($q: String!) { search(query: $q, limit: 10) { hits { memory { id } score } } }"
RECORD_ACCESS = "mutation ($id: ID!) { recordAccess(id: $id) { id accessCount } }"

SUBJECTS = [
    "the billing service", "the payments queue", "the search index", "the auth gateway",
    "the nightly export", "the mobile client", "the staging cluster", "the audit log",
    "the feature flag service", "the email sender", "the cache layer", "the data warehouse",
]  # fmt: skip
FACTS = [
    "retries failed webhooks three times", "must be deployed behind the VPN",
    "is rebuilt every hour", "rejects tokens older than fifteen minutes",
    "runs at two in the morning UTC", "needs a migration before each release",
    "drops messages when the broker restarts", "keeps records for seven years",
    "is owned by the platform team", "sends at most one hundred mails a second",
    "expires entries after five minutes", "is queried through read replicas",
]  # fmt: skip
REASONS = [
    "after the March outage", "as agreed in the design review", "because of the audit",
    "to stay under the rate limit", "since the last incident", "per the security policy",
    "for the GDPR request flow", "until the rewrite lands",
]  # fmt: skip
HINTS = [
    "deploying the billing service", "why are payments messages lost", "search index freshness",
    "token expiry in the auth gateway", "release checklist for migrations",
    "how long are audit records kept", "cache expiry settings", "who owns the platform",
]  # fmt: skip


@dataclass
class LoadConfig:
    clients: int = 16
    seconds: float = 60.0
    max_requests: int = 200_000
    baseline_seconds: float = 5.0
    embedder: str = "minilm"
    scheduler: bool = True
    seed: int = 7
    servers: int = 1
    """Server processes on the one data directory; client ``n`` uses server ``n % servers``."""


@dataclass
class Spread:
    """Where the mixed phase's time went: CPU seconds per process, and the
    server's own account (``/metrics``) of time in statements and in embedding."""

    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds of the server processes (together), their database and this load client."""
    statements: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Per statement name: calls and seconds (round trip included)."""
    embedding: tuple[int, float] = (0, 0.0)
    """Embedding calls and their seconds."""


@dataclass
class LoadResult:
    config: LoadConfig
    elapsed: float
    spread: Spread = field(default_factory=Spread)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    remembered: int = 0
    """Acknowledged remember writes."""
    created: list[str] = field(default_factory=list)
    """Ids of the memories acknowledged as created."""
    baseline: list[float] = field(default_factory=list)
    baseline_elapsed: float = 0.0
    stored_memories: int = -1
    stored_occurrences: int = -1

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.latencies.values())

    @property
    def consistent(self) -> bool:
        return (
            self.stored_memories == len(set(self.created)) == len(self.created)
            and self.stored_occurrences == self.remembered
        )


def content(rng: random.Random, client: int, n: int) -> str:
    return (
        f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(FACTS)} {rng.choice(REASONS)}"
        f" (note {client}-{n})."
    )


class Client:
    """One agent: sends the mix, one request at a time."""

    def __init__(self, number: int, http: httpx.AsyncClient, result: LoadResult) -> None:
        self.number = number
        self.http = http
        self.result = result
        self.rng = random.Random(result.config.seed * 1_000 + number)
        self.sent = 0

    async def post(self, operation: str, query: str, variables: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            response = await self.http.post(
                "/graphql", json={"query": query, "variables": variables}
            )
            body = response.json()
        except (httpx.HTTPError, json.JSONDecodeError) as exc:
            self.result.errors.append(f"{operation}: {type(exc).__name__}: {exc}")
            return None
        finally:
            self.result.latencies[operation].append(time.perf_counter() - started)
        if response.status_code != 200 or body.get("errors"):
            self.result.errors.append(f"{operation}: {response.status_code} {body.get('errors')}")
            return None
        return body["data"]

    async def one(self) -> None:
        operation = self.rng.choices(list(OPERATIONS), weights=list(OPERATIONS.values()))[0]
        known = self.result.created
        if operation == "recordAccess" and not known:
            operation = "remember"
        if operation == "remember":
            item = {"content": content(self.rng, self.number, self.sent), "tags": ["load"]}
            data = await self.post(operation, REMEMBER, {"input": item})
            if data is not None:
                self.result.remembered += 1
                if data["remember"]["created"]:
                    self.result.created.append(data["remember"]["memory"]["id"])
        elif operation == "knowledgeContext":
            await self.post(operation, CONTEXT, {"hint": self.rng.choice(HINTS)})
        elif operation == "search":
            await self.post(operation, SEARCH, {"q": self.rng.choice(HINTS)})
        else:
            await self.post(operation, RECORD_ACCESS, {"id": self.rng.choice(known)})
        self.sent += 1


async def _pool(
    urls: list[str], clients: int, seconds: float, budget: list[int], work: Any
) -> float:
    """Run ``work(client_number, http)`` in a loop on each client until time or
    the shared request budget runs out, client ``n`` on ``urls[n % len(urls)]``;
    returns the elapsed seconds."""
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits)
            )
            for url in urls
        ]
        deadline = time.perf_counter() + seconds
        started = time.perf_counter()

        async def loop(number: int) -> None:
            step = await work(number, https[number % len(https)])
            while time.perf_counter() < deadline and budget[0] > 0:
                budget[0] -= 1
                await step()

        await asyncio.gather(*(loop(n) for n in range(clients)))
        return time.perf_counter() - started


async def measure(servers: list[ServerProcess], config: LoadConfig) -> LoadResult:
    urls = [server.url for server in servers]
    result = LoadResult(config=config, elapsed=0.0)

    async def healthz(_: int, http: httpx.AsyncClient) -> Any:
        async def step() -> None:
            started = time.perf_counter()
            try:
                response = await http.get("/healthz")
                if response.status_code != 200:
                    result.errors.append(f"{BASELINE}: {response.status_code}")
            except httpx.HTTPError as exc:
                result.errors.append(f"{BASELINE}: {type(exc).__name__}: {exc}")
            result.baseline.append(time.perf_counter() - started)

        return step

    async def mixed(number: int, http: httpx.AsyncClient) -> Any:
        return Client(number, http, result).one

    result.baseline_elapsed = await _pool(
        urls, config.clients, config.baseline_seconds, [config.max_requests], healthz
    )
    before = await asyncio.to_thread(_account, servers)
    result.elapsed = await _pool(urls, config.clients, config.seconds, [config.max_requests], mixed)
    result.spread = spread(before, await asyncio.to_thread(_account, servers))
    return result


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU seconds of a process and all its threads (Linux)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _sums(texts: list[str], family: str) -> dict[str, tuple[int, float]]:
    """A histogram's count and sum per ``statement`` label from Prometheus texts
    (one per server), added up."""
    found: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    families = (m for text in texts for m in text_string_to_metric_families(text))
    for metric in families:
        if metric.name != family:
            continue
        for sample in metric.samples:
            key = sample.labels.get("statement", "")
            if sample.name.endswith("_count"):
                found[key][0] += sample.value
            elif sample.name.endswith("_sum"):
                found[key][1] += sample.value
    return {key: (int(count), total) for key, (count, total) in found.items()}


def _account(servers: list[ServerProcess]) -> tuple[dict[str, float], list[str]]:
    """The processes' CPU seconds so far and each server's metrics text."""
    cpu = {
        "server": sum(cpu_seconds(server.pid) for server in servers),
        "database": cpu_seconds(servers[0].database_pid()),
        "client": cpu_seconds(os.getpid()),
    }
    return cpu, [httpx.get(f"{server.url}/metrics", timeout=30.0).text for server in servers]


def spread(
    before: tuple[dict[str, float], list[str]], after: tuple[dict[str, float], list[str]]
) -> Spread:
    """What the mixed phase cost between two ``_account`` readings."""

    def delta(family: str) -> dict[str, tuple[int, float]]:
        old, new = _sums(before[1], family), _sums(after[1], family)
        return {
            key: (count - old.get(key, (0, 0.0))[0], total - old.get(key, (0, 0.0))[1])
            for key, (count, total) in new.items()
        }

    embedding = delta("graphmem_embedding_duration_seconds")
    return Spread(
        cpu={name: after[0][name] - before[0][name] for name in after[0]},
        statements=delta("graphmem_store_statement_duration_seconds"),
        embedding=(
            sum(count for count, _ in embedding.values()),
            sum(total for _, total in embedding.values()),
        ),
    )


def count_stored(data_dir: Path, graph: str = "graphmem") -> tuple[int, int]:
    """Memories in the store and their occurrences, read from the database itself."""
    db = FalkorDB(unix_socket_path=str(data_dir / SOCKET_NAME), socket_timeout=30.0)
    try:
        ((memories, occurrences),) = (
            db.select_graph(graph)
            .ro_query("MATCH (m:Memory) RETURN count(m), sum(m.occurrence_count)")
            .result_set
        )
    finally:
        db.close()
    return int(memories), int(occurrences or 0)


def run(config: LoadConfig, data_dir: Path | None = None) -> LoadResult:
    """Start a server on a fresh data directory, load it, count what it stored."""
    with tempfile.TemporaryDirectory(prefix="gm-load-", dir="/tmp") as scratch:
        where = Path(data_dir or scratch)
        env = {
            "GRAPHMEM_EMBEDDER": config.embedder,
            "GRAPHMEM_SCHEDULER": "true" if config.scheduler else "false",
        }
        with contextlib.ExitStack() as stack:
            servers = [
                stack.enter_context(ServerProcess(where, env=env)) for _ in range(config.servers)
            ]
            result = asyncio.run(measure(servers, config))
            result.stored_memories, result.stored_occurrences = count_stored(where)
        return result


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def report(result: LoadResult) -> str:
    base_p50 = percentile(result.baseline, 50)
    scheduler = "on" if result.config.scheduler else "off"
    lines = [
        f"load: {result.config.clients} clients, {result.config.servers} server process(es), "
        f"{result.elapsed:.1f} s, "
        f"embedder {result.config.embedder}, scheduler {scheduler}",
        f"{'operation':<18}{'requests':>9}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'p99 ms':>9}{'p50/base':>10}",
    ]

    def row(name: str, values: list[float], elapsed: float) -> str:
        p50 = percentile(values, 50)
        return (
            f"{name:<18}{len(values):>9}{len(values) / elapsed:>9.1f}{p50 * 1e3:>9.1f}"
            f"{percentile(values, 95) * 1e3:>9.1f}{percentile(values, 99) * 1e3:>9.1f}"
            f"{p50 / base_p50:>10.1f}"
        )

    lines.append(row(f"{BASELINE} (base)", result.baseline, result.baseline_elapsed))
    for operation in OPERATIONS:
        lines.append(row(operation, result.latencies.get(operation, []), result.elapsed))
    everything = [v for values in result.latencies.values() for v in values]
    lines.append(row("all", everything, result.elapsed))
    lines.append(f"errors: {len(result.errors)}")
    lines += [f"  {error}" for error in result.errors[:5]]
    lines.append(
        f"store: {result.stored_memories} memories for {len(result.created)} created writes; "
        f"{result.stored_occurrences} occurrences for {result.remembered} acknowledged remembers"
        f" -> {'consistent' if result.consistent else 'INCONSISTENT'}"
    )
    return "\n".join(lines + spread_lines(result))


def measured(result: LoadResult) -> list[recorded.Measured]:
    """The run's figures as ratios to the same run's ``/healthz`` (lower is
    better): the baseline's rate over the mix's, and each operation's p50 and
    p95 over the baseline's p50; keyed by the clients and server processes."""
    where = f"{result.config.clients}c/{result.config.servers}s"
    base_rate = len(result.baseline) / max(result.baseline_elapsed, 1e-9)
    base_p50 = percentile(result.baseline, 50)
    rate = result.requests / result.elapsed
    figures = [
        Figure(
            key=f"{where}/all_rate",
            name=f"{where} healthz req/s over the mix's",
            value=rate,
            unit="req/s",
            baseline=base_rate,
            ratio=base_rate / max(rate, 1e-9),
        )
    ]
    for operation in OPERATIONS:
        values = result.latencies.get(operation, [])
        figures += [
            Figure(
                key=f"{where}/{operation}_p{q}",
                name=f"{where} {operation} p{q} over healthz p50",
                value=value,
                unit="s",
                baseline=base_p50,
                ratio=value / base_p50,
            )
            for q in (50, 95)
            if values
            for value in [percentile(values, q)]
        ]
    return recorded.speed(figures)


def spread_lines(result: LoadResult, top: int = 8) -> list[str]:
    """How the mixed phase's time was spread: each process's share of the
    machine's cores, and the server's time in statements and embedding per request."""
    cores = os.cpu_count() or 1
    spread, requests = result.spread, max(result.requests, 1)
    lines = [
        f"cpu over the mixed phase ({cores} cores, {result.elapsed:.1f} s): "
        + ", ".join(
            f"{name} {seconds:.1f} s ({seconds / (cores * result.elapsed):.0%})"
            for name, seconds in spread.cpu.items()
        )
    ]
    calls, seconds = spread.embedding
    lines.append(
        f"embedding: {calls} calls, {seconds:.1f} s, {seconds / requests * 1e3:.1f} ms per request"
    )
    total = sum(seconds for _, seconds in spread.statements.values())
    lines.append(
        f"statements: {sum(c for c, _ in spread.statements.values())} calls, {total:.1f} s, "
        f"{total / requests * 1e3:.1f} ms per request; the costliest:"
    )
    ranked = sorted(spread.statements.items(), key=lambda item: -item[1][1])[:top]
    lines += [
        f"  {name:<32}{count:>7} calls {seconds:>7.1f} s {each * 1e3:>7.1f} ms each"
        for name, (count, seconds) in ranked
        for each in [seconds / max(count, 1)]
    ]
    return lines


def main(
    clients: Annotated[int, typer.Option(min=1, max=64, help="Concurrent clients.")] = 16,
    seconds: Annotated[
        float, typer.Option(min=1, max=3_600, help="Length of the mixed phase.")
    ] = 60,
    max_requests: Annotated[
        int, typer.Option(min=1, help="Request budget of each phase, whichever ends first.")
    ] = 200_000,
    baseline_seconds: Annotated[float, typer.Option(min=1, max=600)] = 5,
    embedder: Annotated[str, typer.Option(help="minilm (production) or none.")] = "minilm",
    scheduler: Annotated[bool, typer.Option(help="Periodic jobs in the server.")] = True,
    servers: Annotated[
        int, typer.Option(min=1, max=8, help="Server processes on the one data directory.")
    ] = 1,
    record: Annotated[
        bool, typer.Option("--record", help="Write the figures into docs/figures.md.")
    ] = False,
) -> None:
    config = LoadConfig(
        clients=clients,
        seconds=seconds,
        max_requests=max_requests,
        baseline_seconds=baseline_seconds,
        embedder=embedder,
        scheduler=scheduler,
        servers=servers,
    )
    result = run(config)
    typer.echo(report(result))
    figures = measured(result)
    if record:
        recorded.record("load", figures)
    else:
        typer.echo("\n".join(recorded.regressions("load", figures)))
    if result.errors or not result.consistent:
        sys.exit(1)


if __name__ == "__main__":
    typer.run(main)
