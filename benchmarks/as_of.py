"""``python -m benchmarks.as_of``: what answering as of a past time costs beside
answering now, on the same store in the same run.

The store is built as a project lives: ``n`` memories written through the
Python API over ``days`` of clock time (the write benchmark's generator:
every memory type, real sessions, relations), then a history on top of it,
each step at its own time: later decisions superseding earlier ones (the
writer's ``supersede_many``, which closes the older memory's validity),
candidates approved in bulk, a promotion run per session, archival of what
went stale, some restores and some relations removed. Embeddings are off:
search and knowledgeContext draw on the full-text index (the vector path is
the same for both sides).

Each read (memory, a memories page, search, knowledgeContext, neighborhood)
runs now and as of a past time alternately, call by call (which goes first
alternates too), so drift on a shared machine hits both alike. The figure is
the as-of p50; the baseline the current-time p50; p95s are printed beside.

Current-time reads run the statements they ran before validity existed, with
two more fields projected (``valid_from``, ``valid_to``). A second table
times each current-time read with those statements beside the same statements
without the two fields, alternating the same way: what validity costs a read
that does not ask for the past.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from benchmarks.data import generate
from benchmarks.report import Figure, console, table
from benchmarks.retrieval_scale import queries
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.domain.kinds import RelationType
from graphmem.store.falkordb import FalkorStore
from graphmem.store.statements import Statements

PROJECT = "asof"
START = 1_700_000_000.0
DAY = 86_400.0
BATCH = 1_000


VALIDITY = ", .valid_from, .valid_to}"


class WithoutValidity(Statements):
    """The statements graphmem runs, without the validity fields they project."""

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name).replace(VALIDITY, "}")


@dataclass
class Store:
    gm: GraphMem
    clock: ManualClock
    ids: list[str]
    related: list[str]
    """Memories with at least one relation (neighbourhood centres)."""
    history: dict[str, float]
    """How much of each kind of history was written, and when the load ended."""


@contextmanager
def loaded(n: int, days: float, seed: int, log: Callable[[str], None]) -> Iterator[Store]:
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-asof-"))
    store = FalkorStore.embedded(data_dir, "asof")
    try:
        store.setup_schema()
        clock = ManualClock(START)
        gm = GraphMem(store, clock=clock, project_id=PROJECT)
        yield build(gm, clock, n, days, seed, log)
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def build(
    gm: GraphMem, clock: ManualClock, n: int, days: float, seed: int, log: Callable[[str], None]
) -> Store:
    rng = random.Random(seed)
    dataset = generate(n, seed=seed)
    tick = days * DAY / max(1, n // BATCH)
    started = time.perf_counter()
    ids: list[str] = []
    for start in range(0, n, BATCH):
        clock.advance(tick)
        ids += gm.remember_many(dataset.memories[start : start + BATCH], dedup=False)
        if start and start % (BATCH * 20) == 0:
            log(f"  {start:,} memories written")
    history: dict[str, float] = {"load_s": time.perf_counter() - started}
    related: set[str] = set()
    supersedes = []
    for rel in dataset.relations:
        a, b = ids[rel.from_index], ids[rel.to_index]
        related.update((a, b))
        if rel.type is RelationType.SUPERSEDES:
            supersedes.append({"new_id": a, "old_id": b, "rationale": rel.rationale})
    clock.advance(DAY)
    for start in range(0, len(supersedes), 500):
        gm.store.write(
            "supersede_many",
            {
                "supersedes": supersedes[start : start + 500],
                "project_id": PROJECT,
                "now": clock.now(),
            },
        )
    others = [r for r in dataset.relations if r.type is not RelationType.SUPERSEDES]
    for rel in others[: max(200, len(others) // 10)]:
        clock.advance(1.0)
        gm.relate(ids[rel.from_index], ids[rel.to_index], rel.type, rationale=rel.rationale)
    history["supersessions"] = len(supersedes)
    clock.advance(DAY)
    approved = gm.bulk_review({"min_occurrences": 1}, "approve", dry_run=False)
    history["approved"] = len(approved.applied)
    promoted = 0
    for session in dataset.sessions:
        clock.advance(60.0)
        promoted += len(gm.run_promotion(session).promoted)
    history["promoted"] = promoted
    clock.advance(3 * DAY)
    archived = gm.archive_stale().archived
    history["archived"] = len(archived)
    restored = rng.sample(archived, min(len(archived), max(20, len(archived) // 50)))
    for memory_id in restored:
        clock.advance(1.0)
        gm.restore(memory_id)
    history["restored"] = len(restored)
    removed = others[: min(len(others), 100)]
    for rel in removed:
        clock.advance(1.0)
        gm.unrelate(
            ids[rel.from_index], ids[rel.to_index], rel.type, reason="stale", removed_by="bench"
        )
    history["relations_removed"] = len(removed)
    history["history_s"] = time.perf_counter() - started - history["load_s"]
    return Store(gm=gm, clock=clock, ids=ids, related=sorted(related), history=history)


def measure(
    calls: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]], rounds: int, warmup: int
) -> list[tuple[str, list[float], list[float]]]:
    """Each read now and as of then, alternating call by call."""
    results = []
    for name, (now_call, as_of_call) in calls.items():
        times: dict[bool, list[float]] = {False: [], True: []}
        for i in range(warmup + rounds):
            for as_of in (i % 2 == 0, i % 2 == 1):
                call = as_of_call if as_of else now_call
                began = time.perf_counter()
                call(i)
                if i >= warmup:
                    times[as_of].append((time.perf_counter() - began) * 1e3)
        results.append((name, times[False], times[True]))
    return results


def without_validity(
    store: FalkorStore, call: Callable[[int], Any]
) -> tuple[Callable[[int], Any], Callable[[int], Any]]:
    """``call`` with the statements as they are, and with them as before validity."""
    current, before = store.statements, WithoutValidity(store.dialect)

    def with_statements(statements: Statements) -> Callable[[int], Any]:
        def run(i: int) -> Any:
            store.statements = statements
            try:
                return call(i)
            finally:
                store.statements = current

        return run

    return with_statements(before), with_statements(current)


def figures_of(results: list[tuple[str, list[float], list[float]]], prefix: str) -> list[Figure]:
    """p50 and p95 of each read: the second timing as the value, the first as baseline."""
    figures = []
    for name, base_ms, value_ms in results:
        key = name.split()[0]
        for stat, of in (("p50", statistics.median), ("p95", p95)):
            figures.append(
                Figure(
                    key=f"{prefix}.{key}.{stat}",
                    name=f"{name} {stat}",
                    value=of(value_ms),
                    unit="ms",
                    baseline=of(base_ms),
                    ratio=of(value_ms) / of(base_ms),
                    count=len(value_ms),
                )
            )
    return figures


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(
    memories: Annotated[
        int, typer.Option(min=1_000, max=1_000_000, help="Memories in the store.")
    ] = 100_000,
    days: Annotated[float, typer.Option(min=1, help="Clock time the writes span.")] = 90.0,
    rounds: Annotated[
        int, typer.Option(min=10, max=5_000, help="Calls of each read, each way.")
    ] = 100,
    at: Annotated[
        float, typer.Option(min=0.05, max=1.0, help="The past time, as a share of the history.")
    ] = 0.6,
    seed: Annotated[int, typer.Option(help="Data and history seed.")] = 7,
) -> None:
    """Time every as-of read beside the same read now."""
    out = console(stderr=True)
    out.print(f"loading {memories:,} memories and their history")
    with loaded(memories, days, seed, out.print) as store:
        gm, ids = store.gm, store.ids
        out.print(f"history: {store.history}")
        past = START + at * (store.clock.now() - START)
        rng = random.Random(seed)
        sample = rng.sample(ids, min(len(ids), 5_000))
        known = [i for i, m in zip(sample, gm.get_many(sample, as_of=past), strict=True) if m]
        written = set(known)
        centres = [i for i in store.related if i in written] or known
        hints = queries(max(rounds, 30))
        picks = [rng.randrange(1 << 30) for _ in range(rounds + 20)]

        def one(pool: list[str]) -> Callable[[int], str]:
            return lambda i: pool[picks[i % len(picks)] % len(pool)]

        memory, centre = one(known), one(centres)
        calls: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
            "memory": (lambda i: gm.get(memory(i)), lambda i: gm.get(memory(i), as_of=past)),
            "memories page (20)": (
                lambda i: gm.list(first=20),
                lambda i: gm.list(first=20, as_of=past),
            ),
            "search": (
                lambda i: gm.search(hints[i % len(hints)]),
                lambda i: gm.search(hints[i % len(hints)], as_of=past),
            ),
            "knowledgeContext": (
                lambda i: gm.knowledge_context(hints[i % len(hints)], record_access=False),
                lambda i: gm.knowledge_context(hints[i % len(hints)], as_of=past),
            ),
            "neighborhood (depth 2)": (
                lambda i: gm.neighborhood(centre(i), depth=2),
                lambda i: gm.neighborhood(centre(i), depth=2, as_of=past),
            ),
        }
        results = measure(calls, rounds, warmup=10)
        store_ = gm.store
        assert isinstance(store_, FalkorStore)
        now_calls = {name: without_validity(store_, now) for name, (now, _) in calls.items()}
        now_results = measure(now_calls, rounds, warmup=10)
    printed = console(stderr=False)
    printed.print(
        table(
            figures_of(results, "as_of"),
            title=f"as of a past time (value) beside now (baseline), {memories:,} memories, "
            f"{rounds} calls each way",
        )
    )
    printed.print(
        table(
            figures_of(now_results, "now"),
            title="now, with the validity fields (value) beside the statements without them "
            "(baseline)",
        )
    )


if __name__ == "__main__":
    typer.run(main)
