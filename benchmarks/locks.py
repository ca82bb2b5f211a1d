"""``python -m benchmarks.locks``: what the write lock of a guarded write would cost on FalkorDB.

Guarded writes (``cypher/README.md``) are one statement for both backends:
they write-lock the nodes that passed their check (``SET n._lock = true
REMOVE n._lock``) and check again, which Neo4j needs and FalkorDB, running
one write at a time, does not, so FalkorDB runs them without the two lock
lines (``graphmem.store.statements``). Each figure is one such statement with its
lock beside the statement as FalkorDB runs it, on the same embedded FalkorDB
and data (memories with their vectors), the two alternating call by call
(which goes first alternates too), so drift on a shared machine hits both alike.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from benchmarks.report import Figure, console, table
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.store.falkordb import FalkorStore
from graphmem.store.statements import Statements

PROJECT = "locks"
BATCH = 50
"""Memories (or sessions) per statement: the size of a promotion run."""
CONTEXT = 20
"""Memories a knowledge context returns, each recording an access."""


Call = Callable[[FalkorStore, int], int]
"""Runs one statement and says how many nodes it wrote; the int counts calls,
so each call can differ from the last."""


def calls(ids: list[str], sessions: int) -> dict[str, tuple[Call, int]]:
    """Each statement, and how many nodes each of its calls must write."""
    rng = random.Random(7)
    accessed, scored, promoted = ids[: len(ids) // 2], ids[len(ids) // 2 : -BATCH], ids[-BATCH:]

    def record_retrievals(s: FalkorStore, n: int) -> int:
        params = {"ids": rng.sample(accessed, CONTEXT), "project_id": PROJECT, "now": float(n)}
        return len(s.write("record_retrievals", params))

    def set_importance(s: FalkorStore, n: int) -> int:
        params = {"id": rng.choice(scored), "project_id": PROJECT}
        fields = {"importance": 0.5 + n % 7 / 100}
        params |= {"access_count": 0, "feedback_count": 0, "fields": fields}
        return len(s.write("set_importance", params))

    tiers = ["working", "episodic"]

    def promote_memories(s: FalkorStore, n: int) -> int:
        # Back and forth: every call moves the whole batch, so each one writes.
        there, back = tiers
        tiers.reverse()
        moves = [
            {
                "id": i,
                "from_tier": there,
                "to_tier": back,
                "event_id": f"e{n}-{i}",
                "score": 0.5,
                "importance_fields": {"importance": 0.5},
                "component_names": [],
                "component_values": [],
                "component_contributions": [],
            }
            for i in promoted
        ]
        params = {"moves": moves, "project_id": PROJECT, "run_id": f"r{n}", "run": None}
        (row,) = s.write("promote_memories", {**params, "trigger": "manual", "now": float(n)})
        return len(row["moved"])

    def claim_due_sessions(s: FalkorStore, n: int) -> int:
        # A zero interval leaves every session due again at the next call's time.
        params = {"now": float(n), "limit": sessions, "owner": "bench", "default_interval": 0.0}
        return len(s.write("claim_due_sessions", params))

    return {
        f"record_retrievals ({CONTEXT} memories)": (record_retrievals, CONTEXT),
        "set_importance (1 memory)": (set_importance, 1),
        f"promote_memories ({BATCH} memories)": (promote_memories, BATCH),
        f"claim_due_sessions ({sessions} sessions)": (claim_due_sessions, sessions),
    }


def measure(
    store: FalkorStore, call: Call, writes: int, rounds: int, start: int
) -> tuple[float, float]:
    """Median milliseconds per call: (locked, unlocked). A call that wrote fewer
    than ``writes`` nodes measured something else, and stops the run."""
    locked, unlocked = Statements(store.dialect, locks=True), store.statements
    times: dict[bool, list[float]] = {True: [], False: []}
    n = start
    for r in range(rounds):
        for lock in (True, False) if r % 2 == 0 else (False, True):
            store.statements = locked if lock else unlocked
            n += 1
            began = time.perf_counter()
            wrote = call(store, n)
            times[lock].append(time.perf_counter() - began)
            if wrote != writes:
                raise RuntimeError(f"call {n} wrote {wrote} nodes, not {writes}")
    store.statements = unlocked
    return statistics.median(times[True]) * 1e3, statistics.median(times[False]) * 1e3


@contextmanager
def loaded(memories: int, sessions: int) -> Iterator[tuple[FalkorStore, list[str]]]:
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-locks-"))
    store = FalkorStore.embedded(data_dir, "locks")
    try:
        store.setup_schema()
        # With their vectors, as graphmem stores memories: a write to a memory
        # re-inserts its vector into FalkorDB 4.16's index, and so does a lock.
        gm = GraphMem(store, clock=ManualClock(0.0), project_id=PROJECT, embedder=MiniLMEmbedder())
        for s in range(sessions):
            gm.open_session(f"s{s}")
        ids: list[str] = []
        for start in range(0, memories, 1_000):
            items = [
                {"content": f"memory {i} about topic {i % 97}", "session_id": f"s{i % sessions}"}
                for i in range(start, min(start + 1_000, memories))
            ]
            ids += gm.remember_many(items, dedup=False)
        yield store, ids
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def main(
    memories: Annotated[int, typer.Option(min=200, max=100_000, help="Memories stored.")] = 5_000,
    sessions: Annotated[int, typer.Option(min=1, max=1_000, help="Active sessions.")] = 50,
    rounds: Annotated[
        int, typer.Option(min=2, max=2_000, help="Calls of each statement, each way.")
    ] = 200,
) -> None:
    """Time each guarded write with and without its lock on the embedded FalkorDB."""
    figures = []
    with loaded(memories, sessions) as (store, ids):
        for n, (name, (call, writes)) in enumerate(calls(ids, sessions).items()):
            for warm in range(10):
                call(store, warm)
            locked, unlocked = measure(store, call, writes, rounds, start=(n + 1) * 100_000)
            figures.append(
                Figure(
                    key=f"lock.{name.split()[0]}",
                    name=name,
                    value=locked,
                    unit="ms",
                    baseline=unlocked,
                    ratio=locked / unlocked,
                    count=rounds,
                )
            )
    out = console(stderr=False)
    out.print(
        table(
            figures,
            title=f"guarded writes: with the lock (value) and without (baseline), "
            f"median per call, {memories:,} memories",
        )
    )


if __name__ == "__main__":
    typer.run(main)
