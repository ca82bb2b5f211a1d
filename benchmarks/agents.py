"""``python -m benchmarks.agents``: what seeing a project as one agent costs.

Every statement that reads memories keeps, when the call acts as an agent, only
the shared memories and that agent's private ones (``graphmem.api.agents``). Each
figure is one read as an agent (value) beside the same read as no agent, which
filters nothing (baseline), on the same embedded FalkorDB and data, the two
alternating call by call (which goes first alternates too), so drift on a
shared machine hits both alike. Half the memories are private, spread over the
agents.
"""

from __future__ import annotations

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
from graphmem.store.falkordb import FalkorStore

TOPICS = ["cache", "deploy", "schema", "retry", "logging", "auth", "queue", "billing"]

Read = Callable[[GraphMem, int], int]
"""One read through a GraphMem (or an agent's view of it); says how many memories
it returned. The int counts calls, so each call can ask something else."""


def reads(ids: list[str]) -> dict[str, Read]:
    def get_many(gm: GraphMem, n: int) -> int:
        start = n * 50 % (len(ids) - 50)
        return sum(m is not None for m in gm.get_many(ids[start : start + 50]))

    def list_page(gm: GraphMem, n: int) -> int:
        return len(gm.list(first=50).items)

    def search(gm: GraphMem, n: int) -> int:
        topic = TOPICS[n % len(TOPICS)]
        return len(gm.search(f"{topic} note", mode="FULLTEXT", limit=20).hits)

    def context(gm: GraphMem, n: int) -> int:
        topic = TOPICS[n % len(TOPICS)]
        return len(gm.knowledge_context(f"{topic} note", record_access=False).items)

    return {
        "get_many (50 ids)": get_many,
        "list (a page of 50)": list_page,
        "search FULLTEXT (20 hits)": search,
        "knowledgeContext": context,
    }


def measure(gm: GraphMem, read: Read, agent: str, rounds: int) -> tuple[float, float]:
    """Median milliseconds per call: (as the agent, as no agent)."""
    view = gm.as_agent(agent)
    times: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for as_agent in (True, False) if r % 2 == 0 else (False, True):
            began = time.perf_counter()
            read(view if as_agent else gm, r)
            times[as_agent].append(time.perf_counter() - began)
    return statistics.median(times[True]) * 1e3, statistics.median(times[False]) * 1e3


@contextmanager
def loaded(memories: int, agents: int) -> Iterator[tuple[GraphMem, list[str]]]:
    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-agents-"))
    store = FalkorStore.embedded(data_dir, "agents")
    try:
        store.setup_schema()
        gm = GraphMem(store, clock=ManualClock(0.0))
        ids: list[str] = []
        for start in range(0, memories, 1_000):
            items = [
                {
                    "content": f"{TOPICS[i % len(TOPICS)]} note {i} for case {i % 89}",
                    "agent_id": f"agent-{i % agents}",
                    "visibility": "private" if i % 2 else "shared",
                }
                for i in range(start, min(start + 1_000, memories))
            ]
            ids += gm.remember_many(items, dedup=False)
        yield gm, ids
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def main(
    memories: Annotated[int, typer.Option(min=200, max=100_000, help="Memories stored.")] = 5_000,
    agents: Annotated[int, typer.Option(min=2, max=100, help="Agents writing them.")] = 10,
    rounds: Annotated[
        int, typer.Option(min=2, max=2_000, help="Calls of each read, each way.")
    ] = 100,
) -> None:
    """Time each read as one agent and as no agent on the embedded FalkorDB."""
    figures = []
    with loaded(memories, agents) as (gm, ids):
        for name, read in reads(ids).items():
            for warm in range(5):
                read(gm, warm)
            as_agent, everyone = measure(gm, read, "agent-1", rounds)
            figures.append(
                Figure(
                    key=f"agents.{name.split()[0]}",
                    name=name,
                    value=as_agent,
                    unit="ms",
                    baseline=everyone,
                    ratio=as_agent / everyone,
                    count=rounds,
                )
            )
    console(stderr=False).print(
        table(
            figures,
            title=f"reads as one agent (value) and as no agent (baseline), median per call, "
            f"{memories:,} memories, half private to {agents} agents",
        )
    )


if __name__ == "__main__":
    typer.run(main)
