"""A database killed while its vector index is being built, and its restart.

FalkorDB builds an index in the background after ``CREATE VECTOR INDEX`` and
again from its files at every start (the vectors are stored, the index is
not). These tests kill the real embedded server with SIGKILL in both states,
while an agent keeps reading, searching and writing through the Python API:
every call succeeds or answers ``STORE_UNAVAILABLE`` (never an internal error),
and every acknowledged write is there, and found by search, once the index is
built again. The append-only file holds each write's effects: a restart
rebuilds exactly the graph that was acknowledged.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.services.embeddings import MiniLMEmbedder
from graphmem.settings import Settings
from graphmem.store import await_indexes, indexes_building
from graphmem.store.embedded import PID_NAME, SOCKET_NAME
from graphmem.store.factory import open_store
from graphmem.store.falkordb import FalkorStore
from tests.integration.test_supervision import _running, kill_database

MEMORIES = 300
FILLER = 2_000
"""Vectors of another project beside the memories, so that building the index
takes long enough to be seen building (about a second)."""
MODES = ("HYBRID", "VECTOR", "FULLTEXT")
TOPICS = ("deploys", "migrations", "the cache", "retries", "the build", "the release train")


def contents() -> list[str]:
    return [
        f"ticket rk{n:04d}: {TOPICS[n % len(TOPICS)]} of service {n % 17} need step {n % 11} first"
        for n in range(MEMORIES)
    ]


@pytest.fixture
def short_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("idx")


def open_gm(data_dir: Path, embedder: MiniLMEmbedder) -> GraphMem:
    """Strict: every acknowledged write is on disk before its answer, whatever
    the machine's disk is doing when the database is killed."""
    settings = Settings(data_dir=data_dir, embedder="none", durability="strict")
    return GraphMem(open_store(settings), embedder=embedder)


def fill(gm: GraphMem) -> dict[str, str]:
    """The acknowledged memories (id to content) and the filler vectors."""
    texts = contents()
    ids = gm.remember_many([{"content": text} for text in texts], dedup=False)
    store = gm.store
    assert isinstance(store, FalkorStore)
    store._graph.query(
        f"UNWIND range(1, {FILLER}) AS i "
        "CREATE (m:Memory {id: 'filler-' + toString(i), project_id: 'filler'}) "
        "SET m.embedding = vecf32([x IN range(1, 384) | rand() - 0.5])"
    )
    return dict(zip(ids, texts, strict=True))


class Agent:
    """Reads, searches and writes until the store has come back with its index,
    keeping what was acknowledged and every error that is not STORE_UNAVAILABLE."""

    def __init__(self, gm: GraphMem, known: dict[str, str]) -> None:
        self.gm = gm
        self.known = known
        self.unavailable = 0
        self.unexpected: list[str] = []
        self.calls = 0

    def call(self, what: str, action: Callable[[], object]) -> None:
        self.calls += 1
        try:
            action()
        except StoreUnavailableError:
            self.unavailable += 1
        except Exception as exc:  # the failure this test looks for
            self.unexpected.append(f"{what}: {type(exc).__name__}: {exc}")

    def round(self, n: int) -> None:
        some_id = next(iter(self.known))
        self.call("get", lambda: self.gm.get(some_id))
        self.call("list", lambda: self.gm.list(first=5))
        for mode in MODES:
            self.call(f"search {mode}", lambda mode=mode: self.gm.search("deploys", mode=mode))

        def write() -> None:
            content = f"written during the outage, round {n}"
            self.known[self.gm.remember({"content": content}).id] = content

        self.call("remember", write)

    def until_back(self, store: FalkorStore, deadline: float = 120.0) -> None:
        """Rounds until a round ran clean with every index built (bounded)."""
        ends = time.monotonic() + deadline
        n = 0
        while time.monotonic() < ends:
            before = (self.unavailable, len(self.unexpected))
            self.round(n)
            n += 1
            if (self.unavailable, len(self.unexpected)) == before and not _building(store):
                return
        pytest.fail(f"the store did not come back within {deadline:.0f} s")


def _building(store: FalkorStore) -> bool:
    try:
        return bool(indexes_building(store))
    except StoreUnavailableError:
        return True


def check_everything_there(gm: GraphMem, known: dict[str, str]) -> None:
    store = gm.store
    assert isinstance(store, FalkorStore)
    await_indexes(store)
    for memory_id, content in known.items():
        assert gm.get(memory_id).content == content
    target_id, target = next(iter(known.items()))
    for mode in ("VECTOR", "FULLTEXT"):
        hits = [hit.memory.id for hit in gm.search(target, mode=mode, limit=10).hits]
        assert target_id in hits, f"{mode} search finds an acknowledged memory again"


def comes_back_whole(gm: GraphMem, store: FalkorStore, known: dict[str, str]) -> None:
    """The agent's calls ride out the restart (STORE_UNAVAILABLE at worst), and
    then every acknowledged memory is there and found."""
    agent = Agent(gm, known)
    agent.until_back(store)
    assert agent.unexpected == []
    check_everything_there(gm, known)


def test_a_database_killed_while_its_vector_index_builds_comes_back_whole(
    short_dir: Path, embedder: MiniLMEmbedder
):
    """The index is rebuilt (as a migration or a new index does) and the
    database is killed while it builds; the agent's calls meanwhile."""
    gm = open_gm(short_dir, embedder)
    try:
        known = fill(gm)
        store = gm.store
        assert isinstance(store, FalkorStore)
        await_indexes(store)
        (ddl,) = [d for d in store.statements.script("schema") if "VECTOR INDEX" in d]
        store._graph.query("DROP VECTOR INDEX FOR (m:Memory) ON (m.embedding)")
        store._graph.query(ddl)
        assert indexes_building(store), "the index is being built when the database is killed"
        killed = int((short_dir / PID_NAME).read_text())
        kill_database(short_dir)
        comes_back_whole(gm, store, known)
        assert int((short_dir / PID_NAME).read_text()) != killed, "a new server serves"
    finally:
        gm.close()


def test_a_database_killed_while_a_restart_rebuilds_its_index_comes_back_whole(
    short_dir: Path, embedder: MiniLMEmbedder
):
    """Killed, restarted by the supervisor, and killed again while the new
    server is still loading its files and building its index from them."""
    gm = open_gm(short_dir, embedder)
    try:
        known = fill(gm)
        store = gm.store
        assert isinstance(store, FalkorStore)
        await_indexes(store)
        first = int((short_dir / PID_NAME).read_text())
        kill_database(short_dir)
        assert _caught_loading(short_dir, first), "the second kill landed while the index built"
        comes_back_whole(gm, store, known)
    finally:
        gm.close()


def _caught_loading(data_dir: Path, old: int, deadline: float = 60.0) -> bool:
    """Wait for the server the supervisor starts after ``old`` and kill it while
    it still loads (it answers ``LOADING`` or its indexes are building); whether
    that kill landed so."""
    ends = time.monotonic() + deadline
    while time.monotonic() < ends:
        try:
            pid = int((data_dir / PID_NAME).read_text())
        except (OSError, ValueError):
            pid = old
        if pid != old and _running(pid) and _loading(data_dir):
            os.kill(pid, signal.SIGKILL)
            while _running(pid):
                time.sleep(0.01)
            return True
        time.sleep(0.005)
    return False


def _loading(data_dir: Path) -> bool:
    client = redis.Redis(unix_socket_path=str(data_dir / SOCKET_NAME), socket_timeout=1.0)
    try:
        client.ping()
        rows = client.execute_command(
            "GRAPH.RO_QUERY", "graphmem", "CALL db.indexes() YIELD status RETURN status"
        )[1]
        return any(row[0] != b"OPERATIONAL" for row in rows)
    except redis.BusyLoadingError:
        return True
    except redis.RedisError:
        return False
    finally:
        client.close()


def test_the_writes_replayed_after_a_kill_rebuild_exactly_the_acknowledged_graph(
    short_dir: Path, embedder: MiniLMEmbedder
):
    """Every kind of write lands in the append-only file as its effects; a
    database killed after them comes back with the same nodes, values (vectors
    included) and edges, none twice."""
    from tests.conftest import graph_contents

    gm = open_gm(short_dir, embedder)
    try:
        ids = gm.remember_many([{"content": text} for text in contents()[:40]])
        gm.update(ids[0], {"content": "the deploy needs the migration step first"})
        gm.record_access(ids[1])
        gm.feedback(ids[2], 1)
        gm.pin(ids[3])
        gm.relate(ids[4], ids[5], "RELATED_TO", rationale="same service")
        gm.supersede(ids[6], ids[7])
        gm.forget(ids[8])
        gm.remember({"content": contents()[9]})  # a repetition, counted into its memory
        store = gm.store
        assert isinstance(store, FalkorStore)
        before = graph_contents(store)
        incr = b"".join(p.read_bytes() for p in (short_dir / "appendonlydir").glob("*.incr.aof"))
        statements = re.findall(rb"GRAPH\.QUERY\r\n\$\d+\r\n[^\r]*\r\n\$\d+\r\n([^\r]*)", incr)
        assert incr.count(b"GRAPH.EFFECT") >= 9, "each write is appended as its effects"
        assert all(b"INDEX" in text for text in statements), "only the schema is appended as text"
        kill_database(short_dir)
        gm.get(ids[0])  # waits for the supervisor's restart
        assert graph_contents(store) == before
    finally:
        gm.close()
