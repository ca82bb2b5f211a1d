"""``python -m benchmarks.deliveries``: what putting each knowledgeContext answer
on record costs the answer, and what one delivery takes to store.

Two GraphMems share one embedded FalkorDB and its memories: one with the
record on (``deliveries.enabled``, the default), one with it off (baseline).
Calls alternate between the two, which one goes first alternating too, so
drift on a shared machine hits both alike; p50 and p95 of each are compared
as ratios. The store has no embedder: full text and relations only, the
cheapest knowledgeContext, so the record's share of it is the largest it gets.
``--neo4j`` times the same on a Neo4j the run starts (``benchmarks.neo4j_server``).

Storage per delivery is measured after the timing: the memory FalkorDB's
server reports (``INFO memory``) and the append-only file on disk, each
before and after writing a batch of deliveries of ``max_results`` memories,
divided by the batch.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from benchmarks.neo4j_server import Neo4jTarget
from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.retention import Deliveries, RetentionRules
from graphmem.domain.retrieval import ContextRequest
from graphmem.store import Store, await_indexes
from graphmem.store.falkordb import FalkorStore

TOPICS = ["cache", "deploy", "schema", "retry", "logging", "auth", "queue", "billing"]
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "su"]
TARGET = 1.10
"""The record may add at most 10% to knowledgeContext's p50 and p95."""


def word(k: int) -> str:
    """One of 1,000 made-up words, so each word matches a few memories in a thousand."""
    return "".join(SYLLABLES[k // 10**p % 10] for p in range(3)) + "n"


def words(i: int) -> str:
    """Memory ``i``'s three distinctive words."""
    return " ".join(word(i * m % 1_000) for m in (7, 13, 31))


def content(i: int) -> str:
    return f"the {TOPICS[i % 8]} decision {i}: {words(i)} after incident {i % 613}"


def hint(n: int) -> str:
    """A question in the words of memory ``n * 37``."""
    return f"what do we know about {words(n * 37)} for the {TOPICS[n * 37 % 8]}"


def fill(store: Store, memories: int) -> None:
    """``memories`` memories in the default project, then the indexes ready."""
    gm = GraphMem(store, clock=ManualClock(0.0))
    for start in range(0, memories, 2_000):
        items = [
            {"content": content(i), "memory_type": "decision"}
            for i in range(start, min(start + 2_000, memories))
        ]
        gm.remember_many(items, dedup=False)
    # The full-text index fills in the background: an answer timed before it is
    # ready finds nothing and costs nothing.
    await_indexes(store, timeout=600.0)


@contextmanager
def loaded(memories: int) -> Iterator[tuple[FalkorStore, Path]]:
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-deliveries-"))
    store = FalkorStore.embedded(data_dir, "deliveries")
    try:
        store.setup_schema()
        fill(store, memories)
        yield store, data_dir
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def timed(
    on: GraphMem, off: GraphMem, rounds: int, max_results: int
) -> tuple[dict[bool, list[float]], float]:
    """Milliseconds per knowledgeContext with the record on (True) and off (False),
    and the mean number of memories an answer gave."""
    times: dict[bool, list[float]] = {True: [], False: []}
    given = 0
    for r in range(rounds):
        for recorded in (True, False) if r % 2 == 0 else (False, True):
            gm = on if recorded else off
            began = time.perf_counter()
            answer = gm.knowledge_context(hint(r), max_results=max_results, min_relevance=0.0)
            times[recorded].append((time.perf_counter() - began) * 1e3)
            given += len(answer.items)
    return times, given / (2 * rounds)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def storage(
    store: FalkorStore, data_dir: Path, gm: GraphMem, count: int, size: int
) -> tuple[list[float], int]:
    """Bytes per delivery of ``size`` memories: (server memory, append-only file)."""
    redis = store._db.connection

    def now() -> tuple[int, int]:
        aof = sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file())
        return int(redis.info("memory")["used_memory"]), aof

    request = ContextRequest(context_hint=hint(1), max_results=size, min_relevance=0.0)
    answer = gm.knowledge_context(request)
    before = now()
    for _ in range(count):
        fields = gm.delivery_record.fields(request, answer.items, project_id="default")
        store.write("record_delivery", dict(fields or {}))
    after = now()
    return [(a - b) / count for a, b in zip(after, before, strict=True)], len(answer.items)


def ratios(store: Store, backend: str, size: int, rounds: int, max_results: int) -> list[Figure]:
    """p50 and p95 of knowledgeContext with the record on over the same with it off."""
    on = GraphMem(store, clock=ManualClock(0.0))
    rules = RetentionRules(deliveries=Deliveries(enabled=False))
    off = GraphMem(store, clock=ManualClock(0.0), rules=rules)
    timed(on, off, 20, max_results)  # warm both paths
    times, given_mean = timed(on, off, rounds, max_results)
    figures = []
    for name, stat in (("p50", statistics.median), ("p95", p95)):
        value, baseline = stat(times[True]), stat(times[False])
        figures.append(
            Figure(
                key=f"deliveries.context_{name}.{backend}.{size}",
                name=f"knowledgeContext {name}, {backend}, {size:,} memories "
                f"({given_mean:.1f} given)",
                value=value,
                unit="ms",
                baseline=baseline,
                ratio=value / baseline,
                target=f"<= {TARGET:.2f}",
                passed=value / baseline <= TARGET,
                count=rounds,
            )
        )
    return figures


def main(
    memories: Annotated[
        list[int] | None, typer.Option(help="Memories stored, one run per size (10,000).")
    ] = None,
    rounds: Annotated[int, typer.Option(min=20, max=5_000, help="Calls each way.")] = 300,
    max_results: Annotated[int, typer.Option(min=1, max=50)] = 5,
    stored: Annotated[int, typer.Option(min=10, max=100_000, help="Deliveries to size.")] = 2_000,
    neo4j: Annotated[
        bool, typer.Option("--neo4j", help="Also on a Neo4j this run starts (timings only).")
    ] = False,
) -> None:
    """knowledgeContext with the record on and off, alternated, at each size."""
    figures = []
    for size in memories or [10_000]:
        with loaded(size) as (store, data_dir):
            figures += ratios(store, "falkordb", size, rounds, max_results)
            (memory, aof), given = storage(
                store, data_dir, GraphMem(store, clock=ManualClock(0.0)), stored, max_results
            )
            for key, label, value in (("memory", "server memory", memory), ("aof", "AOF", aof)):
                figures.append(
                    Figure(
                        key=f"deliveries.bytes_{key}.{size}",
                        name=f"{label} per delivery of {given} memories, {size:,} memories",
                        value=value,
                        unit="B",
                        count=stored,
                    )
                )
    if neo4j:
        target = Neo4jTarget(log=console(stderr=True).print)
        try:
            for size in memories or [10_000]:
                neo4j_store, _ = target.fresh()
                fill(neo4j_store, size)
                figures += ratios(neo4j_store, "neo4j", size, rounds, max_results)
        finally:
            target.close()
    console(stderr=False).print(
        table(
            figures,
            title="knowledgeContext with the record on (value) and off (baseline), alternated "
            f"call by call, {rounds} calls each way, max_results {max_results}, no embedder; "
            "bytes per delivery stored on the embedded FalkorDB",
        )
    )


if __name__ == "__main__":
    typer.run(main)
