"""Searches while FalkorDB builds its indexes in the background after a restart.

With ``DELAY_INDEXING yes`` a restarted server answers as soon as its files are
loaded and builds its indexes afterwards; meanwhile a full-text search answers
with no rows, not an error. These tests kill the real embedded server with
SIGKILL, let the supervisor start it again, and search at once: the answer
finds the memory searched for (late), or is ``STORE_UNAVAILABLE``; never empty.
A read by id answers meanwhile.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.settings import Settings
from graphmem.store import await_indexes, embedded, falkordb, indexes_building
from graphmem.store.embedded import PID_NAME
from graphmem.store.factory import open_store
from graphmem.store.falkordb import FalkorStore

MEMORIES = 200
FILLER = 5_000
"""Vectors of another project beside the memories, so that building the index
after a restart takes long enough to be searched during it (a second or more)."""


@pytest.fixture
def gm(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """A store whose server builds its indexes after it answers, filled."""
    monkeypatch.setattr(embedded, "MODULE_ARGS", (*embedded.MODULE_ARGS, "DELAY_INDEXING", "yes"))
    data_dir = tmp_path_factory.mktemp("delayed")
    gm = GraphMem(open_store(Settings(data_dir=data_dir, embedder="none", durability="strict")))
    store = gm.store
    assert isinstance(store, FalkorStore)
    gm.remember_many(
        [{"content": f"ticket dx{n:04d}: the runbook of service {n}"} for n in range(MEMORIES)],
        dedup=False,
    )
    store._graph.query(
        f"UNWIND range(1, {FILLER}) AS i "
        "CREATE (m:Memory {id: 'filler-' + toString(i), project_id: 'filler'}) "
        "SET m.embedding = vecf32([x IN range(1, 384) | rand() - 0.5])"
    )
    await_indexes(store)
    try:
        yield gm
    finally:
        gm.close()


def restart(gm: GraphMem) -> FalkorStore:
    """Kill the server with SIGKILL and wait until the supervisor's new one
    answers; the indexes are being built then."""
    store = gm.store
    assert isinstance(store, FalkorStore) and store._server is not None
    data_dir = store._server.data_dir
    pid = int((data_dir / PID_NAME).read_text())
    os.kill(pid, signal.SIGKILL)
    ends = time.monotonic() + 60
    while time.monotonic() < ends:
        try:
            if int((data_dir / PID_NAME).read_text()) != pid and store._server.await_serving(1):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.01)
    assert indexes_building(store), "the new server answers before its indexes are built"
    return store


def target(gm: GraphMem) -> tuple[str, str]:
    memory = gm.list(first=1).items[0]
    return memory.id, memory.content


@pytest.mark.slow
def test_a_fulltext_search_during_the_build_waits_and_finds_the_memory(gm: GraphMem):
    memory_id, content = target(gm)
    restart(gm)
    assert gm.get(memory_id).content == content, "a read by id answers during the build"
    hits = [hit.memory.id for hit in gm.search(content, mode="FULLTEXT", limit=5).hits]
    assert memory_id in hits


@pytest.mark.slow
def test_a_search_during_the_build_answers_unavailable_or_right_never_empty(
    gm: GraphMem, monkeypatch: pytest.MonkeyPatch
):
    """No wait at all: every search of the build answers STORE_UNAVAILABLE,
    and the first one after it finds the memory."""
    memory_id, content = target(gm)
    monkeypatch.setattr(falkordb, "RECOVERY_WAIT", 0.0)
    store = restart(gm)
    unavailable = 0
    while True:
        building = bool(indexes_building(store))
        for mode in ("FULLTEXT", "HYBRID"):
            try:
                hits = [hit.memory.id for hit in gm.search(content, mode=mode, limit=5).hits]
            except StoreUnavailableError:
                unavailable += 1
                continue
            assert memory_id in hits, f"a {mode} search answered without the memory"
        if not building:
            break
    assert unavailable, "a search came while the indexes were built"
