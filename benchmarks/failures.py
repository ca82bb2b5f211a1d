"""``python -m benchmarks.failures``: recurrence of a failure counted under
concurrent reports, and what a report costs.

Each round releases ``--threads`` reports of one new failure at once (each
from its own session, the paths and line numbers in its error differing as
they do between checkouts) against an embedded FalkorDB, then reads what was
stored: a round is exact when it left one capsule counting every report, one
lesson counting them too, and one activation of it. The baseline is the same
number of concurrent ``remember`` calls of one text (dedup counting them into
one memory), measured in the same run: the write a report makes beside the
plain remember pipeline.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any

import typer

from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import Status
from graphmem.store.falkordb import FalkorStore


def concurrently(threads: int, call: Callable[[int], Any]) -> list[float]:
    """Run ``call(i)`` on ``threads`` threads released together; each call's ms."""
    start = threading.Barrier(threads)

    def timed(i: int) -> float:
        start.wait(timeout=30)
        began = time.perf_counter()
        call(i)
        return (time.perf_counter() - began) * 1000.0

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(timed, range(threads)))


def report(round_: int, i: int) -> dict[str, Any]:
    return {
        "attempted": f"run migration step {round_}",
        "tool": "Bash",
        "command": f"python migrate.py --step {round_}",
        "error": (
            f'  File "/home/dev{i}/app/migrate.py", line {10 + i}, in <module>\n'
            f"KeyError: 'column_{round_}'"
        ),
        "session_id": f"r{round_}-s{i}",
    }


def exact(gm: GraphMem, round_: int, threads: int) -> bool:
    (capsule,) = [c for c in gm.failure_capsules(limit=200) if f"_{round_}'" in c.error]
    lesson = gm.get(capsule.lesson_id) if capsule.lesson_id else None
    activations = [e for e in gm.staging_events(capsule.lesson_id or "") if e.kind == "activated"]
    return (
        capsule.occurrence_count == threads
        and len(capsule.session_ids) == threads
        and lesson is not None
        and lesson.occurrence_count == threads
        and lesson.status is Status.ACTIVE
        and len(activations) == 1
    )


def main(
    rounds: Annotated[int, typer.Option(min=1, max=200, help="Failures reported.")] = 20,
    threads: Annotated[int, typer.Option(min=2, max=32, help="Concurrent reports each.")] = 8,
) -> None:
    """Report each of ``rounds`` failures ``threads`` times at once; check and time it."""
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-fail-"))
    store = FalkorStore.embedded(data_dir, "failures")
    try:
        store.setup_schema()
        gm = GraphMem(store, clock=ManualClock(1_800_000_000.0))
        reports: list[float] = []
        remembers: list[float] = []
        exact_rounds = 0
        for r in range(rounds):
            remembers += concurrently(
                threads,
                lambda i, r=r: gm.remember({"content": f"migration step {r} needs column {r}"}),
            )
            reports += concurrently(threads, lambda i, r=r: gm.record_failure(report(r, i)))
            exact_rounds += exact(gm, r, threads)
        capsules = len(gm.failure_capsules(limit=200))
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)

    def p(values: list[float], q: int) -> float:
        return statistics.quantiles(values, n=100)[q - 1]

    figures = [
        Figure(
            key="failures.exact_rounds",
            name=f"rounds counted exactly ({threads} concurrent reports each)",
            value=exact_rounds,
            unit="rounds",
            target=f"{rounds} of {rounds}",
            passed=exact_rounds == rounds and capsules == rounds,
            count=rounds,
        ),
        *[
            Figure(
                key=f"failures.report_p{q}",
                name=f"recordFailure under {threads} concurrent, p{q} (baseline: remember)",
                value=p(reports, q),
                unit="ms",
                baseline=p(remembers, q),
                ratio=p(reports, q) / p(remembers, q),
                count=len(reports),
            )
            for q in (50, 95)
        ],
    ]
    console(stderr=False).print(
        table(figures, title=f"failure capsules: {rounds} failures x {threads} reports")
    )
    if exact_rounds != rounds or capsules != rounds:
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
