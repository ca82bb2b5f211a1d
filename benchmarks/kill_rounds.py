"""Kill the database at random points of a write and search mix: no INTERNAL.

``python -m benchmarks.kill_rounds --backend both --rounds 20``

A worker thread keeps sending a mix of ``remember``, ``search`` (FULLTEXT and
HYBRID) and ``knowledge_context`` through one ``GraphMem``, while the main
thread SIGKILLs the database at a random moment, lets it come back (the
embedded FalkorDB's supervisor restarts it; Neo4j is started again on the same
data, as its service manager would) and does it again. Every call must succeed
or fail with ``STORE_UNAVAILABLE``; any other failure is counted as INTERNAL,
and every acknowledged write must be in the store at the end (``lost``).

The store holds a few thousand memories with 384-dimensional vectors before the
first kill, so each restart rebuilds a vector index that searches arrive
during. ``tests/integration/test_kill_rounds.py`` runs the same rounds.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from benchmarks import neo4j_server
from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.settings import Settings
from graphmem.store.embedded import PID_NAME
from graphmem.store.supervisor import State

KINDS = ("remember", "search", "context")
SEARCHES = ("FULLTEXT", "HYBRID")
REVIVE_SECONDS = 120.0
"""How long a round waits for the database to serve again."""


@dataclass
class Outcome:
    """What the calls during the rounds met."""

    calls: Counter[str] = field(default_factory=Counter)
    unavailable: Counter[str] = field(default_factory=Counter)
    internal: list[str] = field(default_factory=list)
    """``call: exception`` of every failure other than STORE_UNAVAILABLE."""
    acknowledged: dict[str, str] = field(default_factory=dict)
    """id -> content of every write that was answered."""
    rounds: int = 0
    lost: int = 0
    _answered: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def answered(self, kind: str) -> None:
        with self._answered:
            self.calls[kind] += 1
            self._answered.notify_all()

    def await_answer(self, timeout: float) -> None:
        """Until one more call has been answered, so that every kill falls on a
        database that served the mix since the last one came back."""
        with self._answered:
            seen = self.calls.total()
            self._answered.wait_for(lambda: self.calls.total() > seen, timeout)

    def await_every_kind(self, timeout: float) -> None:
        """Until each kind of call has been answered once: the first kill falls
        on a mix that has shown it runs."""
        with self._answered:
            self._answered.wait_for(lambda: all(self.calls[kind] for kind in KINDS), timeout)


class Mix(threading.Thread):
    """Sends the mix until stopped, one call at a time, and records each outcome."""

    def __init__(self, gm: GraphMem, outcome: Outcome, seed: int) -> None:
        super().__init__(name="kill-rounds-mix", daemon=True)
        self.gm = gm
        self.outcome = outcome
        self.random = random.Random(seed)
        self.stop = threading.Event()
        self.sent = 0

    def run(self) -> None:
        while not self.stop.is_set():
            self.sent += 1
            kind = self.random.choice(KINDS)
            try:
                self._call(kind)
            except StoreUnavailableError:
                self.outcome.unavailable[kind] += 1
            except Exception as exc:
                self.outcome.internal.append(f"{kind}: {type(exc).__name__}: {exc}")
            else:
                self.outcome.answered(kind)

    def _call(self, kind: str) -> None:
        if kind == "remember":
            content = f"kill round write {self.sent}: the ledger shard {self.sent % 97} moved"
            memory = self.gm.remember({"content": content})
            self.outcome.acknowledged[memory.id] = content
        elif kind == "search":
            mode = self.random.choice(SEARCHES)
            self.gm.search(f"ledger shard {self.sent % 97}", mode=mode, limit=5)
        else:
            self.gm.knowledge_context(
                f"where did ledger shard {self.sent % 97} move", max_results=5
            )


def run_rounds(
    gm: GraphMem,
    kill: Callable[[], None],
    revive: Callable[[], None],
    *,
    rounds: int,
    seed: int = 7,
    longest_pause: float = 1.0,
) -> Outcome:
    """``rounds`` kills at random moments of the mix; the acknowledged writes
    are checked at the end, once the database serves again."""
    outcome = Outcome()
    pauses = random.Random(seed)
    mix = Mix(gm, outcome, seed)
    mix.start()
    try:
        outcome.await_every_kind(REVIVE_SECONDS)
        for _ in range(rounds):
            outcome.await_answer(REVIVE_SECONDS)
            time.sleep(pauses.uniform(0.1, longest_pause))
            kill()
            revive()
            outcome.rounds += 1
    finally:
        mix.stop.set()
        mix.join(timeout=120)
    stored = {m.id: m for m in gm.get_many(list(outcome.acknowledged)) if m is not None}
    outcome.lost = sum(
        stored.get(i) is None or stored[i].content != c for i, c in outcome.acknowledged.items()
    )
    return outcome


SEED = {
    "falkordb": "SET m.embedding = vecf32([x IN range(1, 384) | rand() - 0.5])",
    "neo4j": "SET m.embedding = [x IN range(1, 384) | rand() - 0.5]",
}
"""How each backend stores a vector written by Cypher alone."""


def seed_vectors(gm: GraphMem, count: int) -> None:
    """``count`` memories with random 384-dimensional vectors, written by one
    statement per thousand, so that a restart has a vector index of that size
    to rebuild while searches arrive."""
    text = (
        "UNWIND range($start, $end) AS i "
        "CREATE (m:Memory {id: 'seed-' + toString(i), project_id: 'default', "
        "session_id: 'default', content: 'seeded ledger note ' + toString(i), "
        "created_at: 1.7e9, updated_at: 1.7e9, importance: 0.5, confidence: 0.7, "
        "tier: 'working', status: 'active', visibility: 'shared'}) " + SEED[gm.store.dialect.value]
    )
    for start in range(1, count + 1, 1000):
        raw_write(gm, text, {"start": start, "end": min(count, start + 999)})


def raw_write(gm: GraphMem, text: str, params: dict[str, int]) -> None:
    """A statement of the benchmark's own, run as it is on either backend."""
    store = gm.store
    if store.dialect.value == "falkordb":
        store._graph.query(text, params)  # type: ignore[attr-defined]
    else:
        store._driver.execute_query(text, params, database_=store._database)  # type: ignore[attr-defined]


@contextlib.contextmanager
def embedded(
    data_dir: Path, vectors: int
) -> Iterator[tuple[GraphMem, Callable[[], None], Callable[[], None]]]:
    """A GraphMem on its own embedded FalkorDB; the kill SIGKILLs the server and
    the revival waits for the supervisor to have started it again."""
    gm = GraphMem.open(Settings(data_dir=data_dir, durability="strict"))
    supervisor = gm.store._server.supervisor  # type: ignore[attr-defined]
    supervisor.limit = 1_000_000  # every round is a death; none should end the run
    try:
        gm.warm()
        seed_vectors(gm, vectors)

        def kill() -> None:
            os.kill(int((data_dir / PID_NAME).read_text()), signal.SIGKILL)

        def revive() -> None:
            deadline = time.monotonic() + REVIVE_SECONDS
            while supervisor.state is not State.RESTARTING and time.monotonic() < deadline:
                time.sleep(0.01)  # until the supervisor has seen the death
            assert supervisor.await_serving(REVIVE_SECONDS), "the database did not come back"

        yield gm, kill, revive
    finally:
        gm.close()


@contextlib.contextmanager
def neo4j(
    home: Path, vectors: int, jvm: Sequence[str] = ()
) -> Iterator[tuple[GraphMem, Callable[[], None], Callable[[], None]]]:
    """A GraphMem on a Neo4j of its own; the kill SIGKILLs its JVM and the
    revival starts it again on the same ports and data, as a service manager
    would. ``jvm``: the JVM's JIT and GC options (``neo4j_server.start``)."""
    server = neo4j_server.start(home, auth=False, jvm=jvm)
    ports = {
        "bolt_port": urlsplit(server.bolt_uri).port,
        "http_port": urlsplit(server.http_url).port,
    }
    settings = Settings(
        data_dir=home / "graphmem", backend="neo4j", neo4j_uri=server.bolt_uri, neo4j_retry_time=1
    )
    gm = GraphMem.open(settings)
    try:
        gm.warm()
        seed_vectors(gm, vectors)

        def kill() -> None:
            server.process.kill()
            server.process.wait(timeout=60)

        def revive() -> None:
            nonlocal server
            server = neo4j_server.start(home, auth=False, jvm=jvm, **ports)

        yield gm, kill, revive
    finally:
        gm.close()
        server.stop()


def report(backend: str, outcome: Outcome, seconds: float) -> str:
    return (
        f"{backend}: {outcome.rounds} kills in {seconds:.0f} s; calls answered "
        f"{dict(outcome.calls)}, STORE_UNAVAILABLE {dict(outcome.unavailable)}, "
        f"INTERNAL {len(outcome.internal)}, acknowledged writes {len(outcome.acknowledged)}, "
        f"lost {outcome.lost}"
    )


def main(
    rounds: Annotated[int, typer.Option(help="Kills per backend.")] = 20,
    vectors: Annotated[
        int, typer.Option(help="Memories with vectors before the first kill.")
    ] = 5000,
    backend: Annotated[str, typer.Option(help="falkordb, neo4j or both.")] = "falkordb",
) -> None:
    backends = ("falkordb", "neo4j") if backend == "both" else (backend,)
    for name in backends:
        with tempfile.TemporaryDirectory(prefix="gm-kill-") as directory:
            opened = embedded if name == "falkordb" else neo4j
            with opened(Path(directory), vectors) as (gm, kill, revive):
                started = time.perf_counter()
                outcome = run_rounds(gm, kill, revive, rounds=rounds)
                print(report(name, outcome, time.perf_counter() - started))
                for line in outcome.internal[:10]:
                    print("  INTERNAL", line)


if __name__ == "__main__":
    typer.run(main)
