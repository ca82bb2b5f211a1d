"""``python -m benchmarks.roundtrips``: Cypher round trips per core operation, per backend.

Every ``Store.read`` / ``Store.write`` is one Cypher statement sent and
answered: one round trip. This counts them for remember (one new memory, one
that merges into a memory it repeats, and a batch), record access,
knowledgeContext, search and a promotion run, on:

- ``falkordb``: the embedded FalkorDB with the FalkorDB dialect;
- ``neo4j``: Neo4j with the Neo4j dialect: the server ``GRAPHMEM_NEO4J_URI``
  names (the run writes a project of its own there and leaves it), or else a
  test Neo4j it starts (``benchmarks/neo4j_server.py``), where it also counts
  the Bolt messages each statement costs.

The Neo4j dialect replaces statements one for one (tests/unit/test_dialects.py
holds every name to a single statement on both backends), so an operation's
count cannot differ between dialects unless its Python path does; the
contract suite checks that on every backend it runs on.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from benchmarks.neo4j_server import Neo4jTarget, missing_tools
from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock
from graphmem.services.embeddings import embedder_named
from graphmem.settings import Settings
from graphmem.store import Row, Store

BATCH = 10
"""Memories per batch, unless told otherwise."""


class CountingStore:
    """A store that counts the statements it runs (each one is one round trip)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.dialect = store.dialect
        self.statements: Counter[str] = Counter()

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        self.statements[name] += 1
        return self.store.read(name, params)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        self.statements[name] += 1
        return self.store.write(name, params)

    def setup_schema(self) -> None:
        self.store.setup_schema()

    def close(self) -> None:
        self.store.close()


class BoltMessages(logging.Handler):
    """Counts the Bolt messages the driver sends, from its debug log."""

    KINDS = ("BEGIN", "RUN", "PULL", "COMMIT", "ROLLBACK", "RESET")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.sent: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if " C: " in message:
            kind = message.split(" C: ", 1)[1].split(" ", 1)[0]
            if kind in self.KINDS:
                self.sent[kind] += 1


@dataclass(frozen=True)
class Count:
    operation: str
    items: int
    round_trips: int
    statements: str
    bolt: str = ""

    @property
    def per_item(self) -> float:
        return self.round_trips / self.items


def operations(gm: GraphMem, batch: int) -> list[tuple[str, int, Callable[[], object]]]:
    """The core operations, each with how many items it handles, on a prepared project."""
    gm.open_session("bench")
    # One at a time: the seed is not measured.
    seed = [
        gm.remember(
            {"content": f"decision {i}: use library {i} for parsing", "memory_type": "decision",
             "session_id": "bench", "tags": ["parsing"]}
        ).id
        for i in range(max(batch, 3))
    ]  # fmt: skip
    gm.relate(seed[0], seed[1], "CONSTRAINS")
    gm.clock.advance(120)  # type: ignore[attr-defined]
    counter = iter(range(1_000_000))
    return [
        ("remember (1 memory)", 1, lambda: gm.remember({"content": f"note {next(counter)}"})),
        (
            "remember (a duplicate)",
            1,
            lambda: gm.remember({"content": "decision 0: use library 0 for parsing"}),
        ),
        (
            f"remember_many ({batch} memories)",
            batch,
            lambda: gm.remember_many(
                [{"content": f"batch note {next(counter)}"} for _ in range(batch)]
            ),
        ),
        ("record access", 1, lambda: gm.record_access(seed[2])),
        (
            "knowledgeContext (5 results)",
            5,
            lambda: gm.knowledge_context("which library for parsing", max_results=5),
        ),
        ("search (10 hits)", 10, lambda: gm.search("library parsing", limit=10)),
        (f"promotion run ({batch} candidates)", batch, lambda: gm.run_promotion("bench")),
    ]


def count(gm: GraphMem, batch: int, bolt: BoltMessages | None = None) -> list[Count]:
    """Run each operation once on ``gm`` (whose store is a ``CountingStore``)."""
    store = gm.store
    assert isinstance(store, CountingStore)
    results = []
    for name, items, run in operations(gm, batch):
        store.statements.clear()
        if bolt is not None:
            bolt.sent.clear()
        run()
        statements = ", ".join(f"{s} x{n}" if n > 1 else s for s, n in store.statements.items())
        messages = ""
        if bolt is not None:
            messages = " ".join(f"{k}={bolt.sent[k]}" for k in BoltMessages.KINDS if bolt.sent[k])
        results.append(Count(name, items, sum(store.statements.values()), statements, messages))
    return results


Target = Iterator[tuple[GraphMem, BoltMessages | None]]


def graphmem_on(store: Store, embedder: str, project: str = "default") -> GraphMem:
    return GraphMem(
        CountingStore(store),
        clock=ManualClock(1_800_000_000.0),
        embedder=embedder_named(embedder),
        project_id=project,
    )


@contextmanager
def falkordb_target(embedder: str) -> Target:
    from graphmem.store.falkordb import FalkorStore

    data_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gm-rt-"))
    store = FalkorStore.embedded(data_dir, "roundtrips")
    try:
        store.setup_schema()
        yield graphmem_on(store, embedder), None
    finally:
        store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


@contextmanager
def neo4j_target(embedder: str) -> Target:
    from graphmem.store.neo4j import Neo4jStore

    if os.environ.get("GRAPHMEM_NEO4J_URI"):
        store = Neo4jStore.connect(Settings(backend="neo4j"))
        try:
            store.setup_schema()
            yield graphmem_on(store, embedder, f"roundtrips-{uuid.uuid4().hex[:8]}"), None
        finally:
            store.close()
        return
    target = Neo4jTarget()
    handler = BoltMessages()
    logger = logging.getLogger("neo4j")
    with ExitStack() as stack:
        stack.callback(target.close)
        store, _ = target.fresh()
        logger.addHandler(handler)
        stack.callback(logger.removeHandler, handler)
        previous = logger.level
        logger.setLevel(logging.DEBUG)
        stack.callback(logger.setLevel, previous)
        yield graphmem_on(store, embedder), handler


TARGETS = {"falkordb": falkordb_target, "neo4j": neo4j_target}


def main(
    batch: Annotated[
        int,
        typer.Option(
            min=1,
            max=1000,
            help="Memories per batch.",
        ),
    ] = BATCH,
    embedder: Annotated[
        str,
        typer.Option(help="minilm adds the vector index to search and context; none is faster."),
    ] = "none",
) -> None:
    """Count the Cypher round trips of each core operation on each backend."""
    console = Console(width=None if sys.stdout.isatty() else 160)
    targets = [t for t in TARGETS if t != "neo4j" or not missing_tools()]
    results: dict[str, list[Count]] = {}
    for target in targets:
        with TARGETS[target](embedder) as (gm, bolt):
            results[target] = count(gm, batch, bolt)
    table = Table(title=f"Cypher round trips per operation (embedder: {embedder})")
    table.add_column("operation")
    for target in targets:
        header = f"{target}\nround trips (per item)"
        table.add_column(header, justify="right")
    table.add_column("statements (falkordb)")
    for row, reference in enumerate(results["falkordb"]):
        cells = [reference.operation]
        for target in targets:
            c = results[target][row]
            cells.append(f"{c.round_trips} ({c.per_item:.2f})")
        cells.append(reference.statements)
        table.add_row(*cells)
    console.print(table)
    if any(c.bolt for c in results.get("neo4j", [])):
        console.print("Bolt messages the Neo4j adapter sent per operation:")
        for c in results["neo4j"]:
            console.print(f"  {c.operation}: {c.bolt}")
    if "neo4j" not in results:
        console.print(f"neo4j: left out ({missing_tools()}).")


if __name__ == "__main__":
    typer.run(main)
