"""Durability against crashes, and a clean stop under load.

A real ``graphmem serve`` process with its own embedded FalkorDB takes writes
over HTTP; both processes are killed with SIGKILL mid-stream, a new server
starts on the same data directory, and every write that was acknowledged
must be there, field for field. ``GRAPHMEM_CRASH_WRITES`` raises the number
of writes (200 by default; the kill comes after half of them).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from falkordb import FalkorDB

from benchmarks.server_process import ServerProcess
from graphmem.api import GraphMem
from graphmem.settings import Settings
from graphmem.store.embedded import SOCKET_NAME

WRITES = int(os.environ.get("GRAPHMEM_CRASH_WRITES", "200"))
SERVER_ENV = {
    "GRAPHMEM_DURABILITY": "strict",
    "GRAPHMEM_EMBEDDER": "none",
    "GRAPHMEM_SCHEDULER": "false",
}
REMEMBER = """
mutation ($input: MemoryInput!) {
  remember(input: $input) { created memory { id } }
}
"""
FIELDS = """
  id content memoryType confidence tags evidence rationale sessionId agentId
  source suggestedBy tier status occurrenceCount pinned
"""
READ_BACK = f"query ($id: ID!) {{ memory(id: $id) {{ {FIELDS} }} }}"


def item(n: int) -> dict[str, Any]:
    """The n-th write, every optional field set so that a torn write would show."""
    return {
        "content": f"crash check {n}: the deploy of service {n % 7} needs flag f{n}",
        "memoryType": ["DECISION", "RISK", "FACT", "CONVENTION"][n % 4],
        "confidence": round(0.5 + (n % 50) / 100, 2),
        "tags": [f"svc-{n % 7}", f"n-{n}"],
        "evidence": [f"log line {n}"],
        "rationale": f"because of incident {n}",
        "sessionId": f"s{n % 3}",
        "agentId": "crash-agent",
        "source": "MANUAL",
    }


def expected(n: int, memory_id: str) -> dict[str, Any]:
    sent = item(n)
    return {
        "id": memory_id,
        "content": sent["content"],
        "memoryType": sent["memoryType"],
        "confidence": sent["confidence"],
        "tags": sent["tags"],
        "evidence": sent["evidence"],
        "rationale": sent["rationale"],
        "sessionId": sent["sessionId"],
        "agentId": "crash-agent",
        "source": "MANUAL",
        "suggestedBy": "IMPLICIT",
        "tier": "WORKING",
        "status": "ACTIVE",
        "occurrenceCount": 1,
        "pinned": False,
    }


@pytest.fixture
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A short path: the database listens on a unix socket inside it.
    return tmp_path_factory.mktemp("crash")


class Writer(threading.Thread):
    """Writes memories one by one and keeps every acknowledged one."""

    def __init__(self, url: str, count: int) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.count = count
        self.acknowledged: dict[int, str] = {}
        self.failed = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=10.0) as http:
            for n in range(self.count):
                if self.stopped.is_set():
                    return
                try:
                    response = http.post(
                        "/graphql", json={"query": REMEMBER, "variables": {"input": item(n)}}
                    )
                    body = response.json()
                except (httpx.TransportError, ValueError):
                    self.failed += 1
                    continue
                if response.status_code == 200 and not body.get("errors"):
                    payload = body["data"]["remember"]
                    assert payload["created"], payload
                    self.acknowledged[n] = payload["memory"]["id"]
                else:
                    self.failed += 1


def raw_query(data_dir: Path, query: str) -> list[list[Any]]:
    """A read straight from the running database, past graphmem's page limits."""
    db = FalkorDB(unix_socket_path=str(data_dir / SOCKET_NAME), socket_timeout=10.0)
    try:
        return db.select_graph("graphmem").ro_query(query).result_set
    finally:
        db.close()


def read_back(url: str, ids: dict[int, str]) -> dict[int, dict[str, Any] | None]:
    with httpx.Client(base_url=url, timeout=10.0) as http:
        found = {}
        for n, memory_id in ids.items():
            response = http.post(
                "/graphql", json={"query": READ_BACK, "variables": {"id": memory_id}}
            )
            body = response.json()
            assert not body.get("errors"), body
            found[n] = body["data"]["memory"]
        return found


def test_acknowledged_writes_survive_killing_server_and_database(data_dir: Path):
    kill_after = WRITES // 2
    first = ServerProcess(data_dir, env=SERVER_ENV)
    with first:
        database = first.database_pid()
        assert database is not None, first.log_tail()
        writer = Writer(first.url, WRITES)
        writer.start()
        deadline = time.monotonic() + 120
        while len(writer.acknowledged) < kill_after and time.monotonic() < deadline:
            assert writer.is_alive() or len(writer.acknowledged) >= kill_after, first.log_tail()
            time.sleep(0.002)
        assert len(writer.acknowledged) >= kill_after
        # Both at once, while the writer is mid-request: no shutdown path runs.
        os.kill(database, signal.SIGKILL)
        os.kill(first.pid, signal.SIGKILL)
        first.kill()
        writer.stopped.set()
        writer.join(30)
        assert not writer.is_alive()
    acknowledged = dict(writer.acknowledged)
    assert kill_after <= len(acknowledged) < WRITES, "the kill came too late to test anything"

    with ServerProcess(data_dir, env=SERVER_ENV) as second:
        assert second.database_pid() not in (None, database), "a new database server"
        found = read_back(second.url, acknowledged)
        lost = sorted(n for n, memory in found.items() if memory is None)
        assert not lost, f"acknowledged writes lost after the crash: {lost}"
        for n, memory_id in acknowledged.items():
            assert found[n] == expected(n, memory_id), n
        # Nothing beyond the writes that were sent: no duplicates from a replayed log.
        contents = [row[0] for row in raw_query(data_dir, "MATCH (m:Memory) RETURN m.content")]
    assert len(contents) == len(set(contents))
    assert {item(n)["content"] for n in acknowledged} <= set(contents)
    # At most the one request in flight at the kill was written without an answer.
    assert len(contents) <= len(acknowledged) + 1
    present = sum(1 for memory in found.values() if memory is not None)
    print(f"crash: {len(acknowledged)} acknowledged, {present} present and intact")


# -- graceful shutdown -----------------------------------------------------------

PROMOTABLE = 4_000
"""Memories one scheduled promotion run moves: enough for the run to take most of a second."""


@pytest.fixture
def busy_session(data_dir: Path) -> Iterator[str]:
    """A session whose periodic run, once due, will promote ``PROMOTABLE`` memories.

    It is not due yet (a day away): the test makes it due once the server is up.
    """
    settings = Settings(data_dir=data_dir, embedder="none", scheduler=False)
    with GraphMem.open(settings) as gm:
        gm.open_session("busy")
        gm.enable_promotion("busy", interval_seconds=86_400)
        gm.remember_many(
            [
                {
                    "content": f"risk {n}: the payment queue drops messages under load {n}",
                    "memory_type": "risk",
                    "confidence": 1.0,
                    "session_id": "busy",
                    "source": "manual",
                }
                for n in range(PROMOTABLE)
            ],
            dedup=False,
        )
        assert len(gm.promotion.evaluate("busy", project_id="default", limit=10)) == 10
    yield "busy"


def test_sigterm_drains_requests_and_finishes_the_scheduled_run(data_dir: Path, busy_session: str):
    env = {
        "GRAPHMEM_EMBEDDER": "none",
        "GRAPHMEM_SCHEDULER": "true",
        "GRAPHMEM_MAX_PROMOTIONS_PER_RUN": str(PROMOTABLE),
    }
    server = ServerProcess(data_dir, env=env)
    responses: list[tuple[int, dict[str, Any]]] = []
    stop = threading.Event()

    def client(worker: int) -> None:
        with httpx.Client(base_url=server.url, timeout=30.0) as http:
            for n in range(10_000):
                if stop.is_set():
                    return
                # A random word apiece: near-duplicate dedup must not merge them.
                content = f"in flight {worker}-{n} {uuid.uuid4().hex}"
                variables = {"input": {"content": content, "tags": ["drain"]}}
                try:
                    response = http.post(
                        "/graphql", json={"query": REMEMBER, "variables": variables}
                    )
                except httpx.TransportError:
                    return  # refused or closed: the server stopped accepting, no response
                responses.append((response.status_code, response.json()))

    with server:
        socket_path = data_dir / SOCKET_NAME
        db = FalkorDB(unix_socket_path=str(socket_path), socket_timeout=10.0)
        graph = db.select_graph("graphmem")
        clients = [threading.Thread(target=client, args=(w,), daemon=True) for w in range(4)]
        for thread in clients:
            thread.start()
        graph.query("MATCH (s:Session {id: 'busy'}) SET s.next_promotion_at = 0.0")
        # The scheduler claims the session (a lease in the graph) just before it runs
        # it, and records the run when it ends: SIGTERM goes in between.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ((owner, last_run),) = graph.ro_query(
                "MATCH (s:Session {id: 'busy'}) RETURN s.promotion_lease_owner, s.last_run_id"
            ).result_set
            if owner is not None:
                break
            time.sleep(0.005)
        else:
            pytest.fail("the scheduler never claimed the session")
        assert last_run is None, "the run ended before SIGTERM: nothing was in progress"
        status = server.terminate(timeout=90)
        stop.set()
        for thread in clients:
            thread.join(30)
        db.close()
    assert status == 0, server.log_tail()
    assert responses, "no request got a response"
    failed = [(code, body) for code, body in responses if code != 200 or body.get("errors")]
    assert not failed, failed[:3]

    # The run that was in progress at SIGTERM finished and was recorded.
    settings = Settings(data_dir=data_dir, embedder="none", scheduler=False)
    with GraphMem.open(settings) as gm:
        (stats,) = gm.store.read("session_stats", {"project_id": "default", "session_id": "busy"})
        assert stats["stats"]["promotion_runs"] >= 1
        assert stats["stats"]["last_trigger"] == "periodic"
        events = gm.promotion_events(session_id="busy", limit=10)
        assert events and all(e.trigger == "periodic" for e in events)
        working = gm.promotion.working_count("busy", project_id="default")
        assert working == 0, f"{working} memories left behind by an interrupted run"
        ((stored,),) = raw_query(
            data_dir, "MATCH (m:Memory) WHERE 'drain' IN m.tags RETURN count(m)"
        )
    written = {body["data"]["remember"]["memory"]["id"] for _, body in responses}
    assert len(written) == len(responses)
    assert stored == len(responses)
