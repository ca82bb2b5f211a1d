"""``python -m benchmarks.first_query``: a project's first query beside its later ones.

A store of many projects is asked across all of them, as a fleet of agents
asks: most queries are their project's first since its last write. Each
first query reads the project's full-text statistics (its size and mean
length, the counts of the query's words) before it ranks; later ones find
them cached. The figure is the first queries' p95; the baseline the later
queries' p95 of the same run, asked in the same order project by project.
The goal is a ratio near 1: nothing a first query reads may cost more than a
query does.

Embeddings are off (full text alone, where the statistics weigh) and the
queries go through the Python API, so the figure is graphmem's own cost
without HTTP.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from benchmarks import recorded
from benchmarks.load import percentile
from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.store.falkordb import FalkorStore

WORDS = [
    "deploy", "queue", "worker", "redis", "cache", "timeout", "retry", "backup", "bucket",
    "invoice", "tenant", "schema", "index", "migration", "billing", "report", "export", "login",
    "token", "session", "payment", "garden", "marathon", "recipe", "flight",
]  # fmt: skip


def main(
    projects: Annotated[int, typer.Option(min=2, max=1_000, help="Projects in the store.")] = 40,
    memories: Annotated[
        int, typer.Option(min=10, max=20_000, help="Memories in each project.")
    ] = 1_000,
    queries: Annotated[int, typer.Option(min=2, max=100, help="Queries per project.")] = 10,
    seed: Annotated[int, typer.Option(help="Data and query seed.")] = 5,
    record: Annotated[
        bool, typer.Option("--record", help="Write the figures into docs/figures.md.")
    ] = False,
) -> None:
    """Time each project's first full-text query beside its later ones."""
    rng = random.Random(seed)
    first: list[float] = []
    later: list[float] = []
    with tempfile.TemporaryDirectory(prefix="gmfirst-", dir="/tmp") as data_dir:
        store = FalkorStore.embedded(Path(data_dir), "first-query")
        try:
            store.setup_schema()
            gm = GraphMem(store, clock=ManualClock(start=1.8e9))
            names = [f"p{i:03d}" for i in range(projects)]
            for name in names:
                items = [
                    {"content": " ".join(rng.choices(WORDS, k=rng.randint(6, 20)))}
                    for _ in range(memories)
                ]
                gm.remember_many(items, project_id=name, dedup=False)
            for name in names:
                for n in range(queries):
                    question = " ".join(rng.sample(WORDS, 3))
                    started = time.perf_counter()
                    gm.search(question, mode="FULLTEXT", limit=10, project_id=name)
                    (first if n == 0 else later).append((time.perf_counter() - started) * 1000)
        finally:
            store.close()
    base95 = percentile(later, 95)
    figures = [
        Figure(
            key="first_query_p50",
            name="first query p50 beside later ones'",
            value=percentile(first, 50),
            unit="ms",
            baseline=percentile(later, 50),
            ratio=percentile(first, 50) / percentile(later, 50),
            count=len(first),
        ),
        Figure(
            key="first_query_p95",
            name="first query p95 beside later ones'",
            value=percentile(first, 95),
            unit="ms",
            baseline=base95,
            ratio=percentile(first, 95) / base95,
            target="<= 1.5x",
            passed=percentile(first, 95) <= 1.5 * base95,
            count=len(first),
        ),
    ]
    title = f"first query, {projects} projects of {memories:,} memories, {queries} queries each"
    console(stderr=False).print(table(figures, title=title))
    ratios = recorded.speed(figures)
    if record:
        recorded.record("first_query", ratios)
    else:
        typer.echo("\n".join(recorded.regressions("first_query", ratios)))


if __name__ == "__main__":
    typer.run(main)
