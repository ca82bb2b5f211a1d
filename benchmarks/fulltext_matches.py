"""``python -m benchmarks.fulltext_matches``: what ranking every full-text match
costs where a project's words match most of it.

A project of ``--memories`` turns (5,000 by default: the largest a search ranks
whole, ``RetrievalConfig.exact_fulltext_below``), every one of them naming the
same speaker, beside another project of 2,000, in one embedded FalkorDB.
Embeddings are off: what is timed is the full-text side, which a HYBRID search
waits for beside its vector side. Each query runs FULLTEXT ``limit 10`` with
the whole-project ranking (every match read and ranked by BM25) and with the
index's best ``fulltext_rescore`` only (``exact_fulltext_below=0``, the path a
larger project takes), call by call alternately, so drift on a shared machine
hits both alike. The figure is the whole-project p50; the baseline the
index path's p50 in the same run.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.store.falkordb import FalkorStore

PROJECT = "talk"
WORDS = [
    *("retry", "backoff", "window", "deploy", "release", "freeze", "rollback", "token"),
    *("invoice", "billing", "queue", "cache", "export", "search", "schema", "index"),
    *("migration", "worker", "timeout", "budget"),
]
QUERIES = [
    "alice",
    "alice retry",
    "what did alice say about the retry backoff window",
    "rollback token invoice",
]


def turns(n: int, seed: int, speaker: str) -> list[str]:
    """Short turns of one speaker, a few words each of a small vocabulary."""
    rng = random.Random(seed)
    return [
        f"{speaker}: " + " ".join(rng.sample(WORDS, rng.randint(2, 6))) + f" (turn {i})"
        for i in range(n)
    ]


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main(
    memories: Annotated[
        int, typer.Option(min=100, max=20_000, help="Turns in the project.")
    ] = 5_000,
    rounds: Annotated[int, typer.Option(min=5, max=500, help="Searches per query and path.")] = 30,
) -> None:
    """Time FULLTEXT over every match against the index's best, in one run."""
    out = console(stderr=True)
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-ftm-"))
    store = FalkorStore.embedded(data_dir, "ftm")
    try:
        store.setup_schema()
        gm = GraphMem(store, clock=ManualClock(1_700_000_000.0), project_id=PROJECT)
        for start in range(0, memories, 1_000):
            batch = turns(memories, 1, "Alice")[start : start + 1_000]
            gm.remember_many([{"content": t} for t in batch], dedup=False)
        gm.remember_many([{"content": t} for t in turns(2_000, 2, "Bob")], project_id="other")
        exact = gm.retrieval.config
        index = dataclasses.replace(exact, exact_fulltext_below=0)
        figures = []
        for query in QUERIES:
            timed: dict[str, list[float]] = {"exact": [], "index": []}
            for n in range(rounds * 2):
                path = ("exact", "index")[(n + n // 2) % 2]
                config: RetrievalConfig = exact if path == "exact" else index
                gm.retrieval.config = config
                started = time.perf_counter()
                gm.search(query, mode="FULLTEXT", limit=10)
                timed[path].append((time.perf_counter() - started) * 1_000)
            gm.retrieval.config = exact
            value, baseline = statistics.median(timed["exact"]), statistics.median(timed["index"])
            tails = f"p95 {_p95(timed['exact']):.1f} / {_p95(timed['index']):.1f}"
            figures.append(
                Figure(
                    key=f"fulltext_every_match_p50_{len(figures)}",
                    name=f"{query!r} p50 ({tails})",
                    value=round(value, 1),
                    unit="ms",
                    baseline=round(baseline, 1),
                    ratio=round(value / baseline, 2),
                    count=rounds,
                )
            )
        out.print(table(figures, f"FULLTEXT limit 10, {memories:,} turns naming one speaker"))
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    typer.run(main)
