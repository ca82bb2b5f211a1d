"""Write throughput and read latency of graphmem, each beside raw FalkorDB.

Three figures:

1. ``remember_many`` through the Python API, batch by batch, each batch
   followed (or preceded, alternately) by the raw batched ``CREATE`` of the
   same rows, so drift on a shared machine hits both sides alike;
2. ``memory(id)`` point reads through the real ``graphmem serve`` over HTTP
   at the size written in 1, each request paired with a raw indexed read;
3. ``remember`` mutations over HTTP, several requests in flight, against the
   raw per-item cost of 1. It runs last so that 2 reads exactly ``n``
   memories.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from benchmarks import baseline
from benchmarks.data import Dataset, generate
from benchmarks.harness import PROJECT, BenchEnv, BenchError
from benchmarks.report import Figure

WRITE_RATE_TARGET = 2_000.0
WRITE_RATIO_TARGET = 2.0
READ_P95_TARGET_MS = 10.0
WARMUP_ITEMS = 500
WARMUP_READS = 20

READ_QUERY = """
query Read($id: ID!) {
  memory(id: $id) { id content memoryType tier status importance }
}
"""
INPUT_FIELDS = {
    "content": "content",
    "memory_type": "memoryType",
    "confidence": "confidence",
    "source": "source",
    "tags": "tags",
    "session_id": "sessionId",
    "agent_id": "agentId",
    "rationale": "rationale",
    "evidence": "evidence",
    "self_assessment": "selfAssessment",
}
ENUM_FIELDS = {"memory_type", "source", "self_assessment"}


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """How much load to apply; every phase is bounded in count and in time."""

    n: int = 10_000
    batch: int = 1_000
    requests: int = 1_000
    """HTTP requests in each of the write and read phases."""
    per_request: int = 10
    """``remember`` mutations aliased into one HTTP request."""
    concurrency: int = 4
    max_seconds: float = 120.0
    """Each phase stops issuing work after this long and reports what it measured."""
    seed: int = 7


@dataclass(slots=True)
class Written:
    """Ids by position: the i-th raw node carries the i-th memory's content."""

    ids: list[str]
    raw_ids: list[str]


def run(config: BenchConfig) -> tuple[list[Figure], dict[str, Any]]:
    """Measure every figure in a fresh data directory that is removed afterwards."""
    dataset = generate(config.n, seed=config.seed)
    with BenchEnv() as env:
        api_figure, written = api_writes(env, dataset, config)
        related = relate(env, dataset, written.ids, config)
        with env.served() as url:
            read_figures = reads(url, env, written, config)
            http_figure, http_count = http_writes(url, config, api_figure)
    info = {
        "config": asdict(config),
        "memories_read_at": len(written.ids),
        "memories": len(written.ids) + http_count,
        "sessions": len(dataset.sessions),
        "relations": related,
    }
    return [api_figure, *read_figures, http_figure], info


def api_writes(env: BenchEnv, dataset: Dataset, config: BenchConfig) -> tuple[Figure, Written]:
    warm_gm, warm_raw = env.scratch_graphs("warmup")
    warm = generate(min(WARMUP_ITEMS, config.n), seed=config.seed + 1).memories
    warm_gm.remember_many(warm)
    baseline.write(warm_raw, baseline.raw_rows(warm, project=PROJECT))

    deadline = time.monotonic() + config.max_seconds
    written = Written(ids=[], raw_ids=[])
    graphmem_ns = raw_ns = 0
    for number, start in enumerate(range(0, config.n, config.batch)):
        chunk = dataset.memories[start : start + config.batch]
        rows = baseline.raw_rows(chunk, project=PROJECT, seed=number)
        # Alternate which side goes first so neither always meets a warmer server.
        for side in (0, 1) if number % 2 == 0 else (1, 0):
            began = time.perf_counter_ns()
            if side == 0:
                written.ids += env.gm.remember_many(chunk)
                graphmem_ns += time.perf_counter_ns() - began
            else:
                baseline.write(env.raw, rows)
                raw_ns += time.perf_counter_ns() - began
        written.raw_ids += [row["id"] for row in rows]
        if time.monotonic() > deadline:
            break
    count = len(written.ids)
    rate, raw_rate = count / (graphmem_ns / 1e9), count / (raw_ns / 1e9)
    ratio = graphmem_ns / raw_ns
    figure = Figure(
        key="write_api",
        name=f"remember_many x{config.batch:,}, Python API",
        value=rate,
        unit="mem/s",
        baseline=raw_rate,
        ratio=ratio,
        target=f">= {WRITE_RATE_TARGET:,.0f} mem/s, ratio <= {WRITE_RATIO_TARGET}",
        passed=rate >= WRITE_RATE_TARGET and ratio <= WRITE_RATIO_TARGET,
        count=count,
    )
    return figure, written


def relate(env: BenchEnv, dataset: Dataset, ids: list[str], config: BenchConfig) -> int:
    """Give the graph its edges before it is read; not a timed figure."""
    deadline = time.monotonic() + config.max_seconds
    made = 0
    for planned in dataset.relations:
        if time.monotonic() > deadline:
            break
        if max(planned.from_index, planned.to_index) >= len(ids):
            continue  # the write phase ran out of time before writing this end
        env.gm.relate(
            ids[planned.from_index],
            ids[planned.to_index],
            planned.type,
            rationale=planned.rationale,
        )
        made += 1
    return made


def http_writes(url: str, config: BenchConfig, api: Figure) -> tuple[Figure, int]:
    """``remember`` over HTTP: several requests in flight, each with aliased mutations."""
    total = (config.requests + config.concurrency) * config.per_request
    items = generate(total, seed=config.seed + 2, session_prefix="http").memories
    payloads = [
        remember_payload(items[i : i + config.per_request])
        for i in range(0, len(items), config.per_request)
    ]
    warmup, timed = payloads[: config.concurrency], payloads[config.concurrency :]
    count, seconds = _post_all(url, warmup, timed, config)
    if not count:
        raise BenchError("no write was timed: raise --max-seconds")
    assert api.baseline is not None
    figure = Figure(
        key="write_http",
        name=f"remember, GraphQL/HTTP, {config.concurrency}x{config.per_request} in flight",
        value=count / seconds,
        unit="mem/s",
        baseline=api.baseline,
        ratio=(seconds / count) * api.baseline,
        count=count,
    )
    return figure, count + len(warmup) * config.per_request


def _post_all(
    url: str, warmup: list[dict[str, Any]], timed: list[dict[str, Any]], config: BenchConfig
) -> tuple[int, float]:
    """Post from ``concurrency`` threads, each with its own keep-alive connection.

    Threads rather than one asyncio client: httpx's async pool is known to slow
    down under concurrency (encode/httpx#3215); here four requests in flight
    through it wrote a third as fast as one.
    """
    with httpx.Client(base_url=url, timeout=30.0) as client:
        for payload in warmup:
            _data(client.post("/graphql", json=payload))
    pending = iter(timed)
    lock = threading.Lock()
    deadline = time.monotonic() + config.max_seconds

    def worker() -> int:
        created = 0
        with httpx.Client(base_url=url, timeout=30.0) as client:
            while time.monotonic() < deadline:
                with lock:
                    payload = next(pending, None)
                if payload is None:
                    break
                created += len(_data(client.post("/graphql", json=payload)))
        return created

    with ThreadPoolExecutor(config.concurrency) as pool:
        began = time.perf_counter()
        workers = [pool.submit(worker) for _ in range(config.concurrency)]
        created = sum(w.result() for w in workers)
        return created, time.perf_counter() - began


def remember_payload(items: list[dict[str, Any]]) -> dict[str, Any]:
    """One request creating several memories: aliased mutations run in order."""
    variables = {f"i{k}": graphql_input(item) for k, item in enumerate(items)}
    params = ", ".join(f"$i{k}: MemoryInput!" for k in range(len(items)))
    fields = " ".join(
        f"m{k}: remember(input: $i{k}) {{ memory {{ id }} }}" for k in range(len(items))
    )
    return {"query": f"mutation Write({params}) {{ {fields} }}", "variables": variables}


def graphql_input(item: dict[str, Any]) -> dict[str, Any]:
    """A ``remember`` input in GraphQL's spelling: camelCase keys, enum names."""
    return {
        INPUT_FIELDS[key]: value.upper() if key in ENUM_FIELDS else value
        for key, value in item.items()
    }


def reads(url: str, env: BenchEnv, written: Written, config: BenchConfig) -> list[Figure]:
    """Sequential ``memory(id)`` requests on one keep-alive connection, each paired
    with a raw read of the raw node written in the same batch position."""
    rng = random.Random(config.seed)
    picks = [rng.randrange(len(written.ids)) for _ in range(WARMUP_READS + config.requests)]
    http_ms: list[float] = []
    raw_ms: list[float] = []
    deadline = time.monotonic() + config.max_seconds
    with httpx.Client(base_url=url, timeout=10.0) as client:
        for number, k in enumerate(picks):
            if time.monotonic() > deadline:
                break
            began = time.perf_counter_ns()
            response = client.post(
                "/graphql", json={"query": READ_QUERY, "variables": {"id": written.ids[k]}}
            )
            between = time.perf_counter_ns()
            rows = baseline.read(env.raw, written.raw_ids[k])
            ended = time.perf_counter_ns()
            memory = _data(response)["memory"]
            if memory is None or memory["id"] != written.ids[k] or len(rows) != 1:
                raise BenchError(f"read of {written.ids[k]} did not return that memory")
            if number >= WARMUP_READS:
                http_ms.append((between - began) / 1e6)
                raw_ms.append((ended - between) / 1e6)
    if not http_ms:
        raise BenchError("no read was timed: raise --max-seconds")
    figures = []
    for label, rank in (("p50", 50), ("p95", 95)):
        value, raw = _percentile(http_ms, rank), _percentile(raw_ms, rank)
        passed = value <= READ_P95_TARGET_MS if rank == 95 else None
        figures.append(
            Figure(
                key=f"read_{label}",
                name=f"memory(id) {label}, GraphQL/HTTP",
                value=value,
                unit="ms",
                baseline=raw,
                ratio=value / raw,
                target=f"<= {READ_P95_TARGET_MS:g} ms" if rank == 95 else None,
                passed=passed,
                count=len(http_ms),
            )
        )
    return figures


def _percentile(samples: list[float], rank: int) -> float:
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[rank - 1]


def _data(response: httpx.Response) -> dict[str, Any]:
    """The ``data`` of a GraphQL answer; any error stops the benchmark."""
    if response.status_code != 200:
        raise BenchError(f"HTTP {response.status_code}: {response.text[:300]}")
    body = response.json()
    if body.get("errors"):
        raise BenchError(f"GraphQL error: {body['errors'][0].get('message')}")
    return body["data"]
