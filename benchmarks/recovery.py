"""How fast a ``graphmem serve`` answers again after its database is killed.

``python -m benchmarks.recovery --runs 5``

Each run starts a strict-durability ``graphmem serve`` in a child process on a
fresh data directory, keeps a writer sending ``remember`` mutations, SIGKILLs
the embedded FalkorDB server mid-stream and measures the time from the kill
to the first successful request. The writer goes on through the restart; at
the end every write that was acknowledged must be in the store, field for
field (``lost`` must be 0).

The baseline, measured in the same run, is what recovery cost before the
database was supervised: a person restarting ``graphmem serve`` by hand, from
process start to its first answer (not counting the person).
"""

from __future__ import annotations

import os
import signal
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from benchmarks.server_process import ServerProcess

ENV = {"GRAPHMEM_DURABILITY": "strict", "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_SCHEDULER": "false"}
REMEMBER = """
mutation ($input: MemoryInput!) { remember(input: $input) { memory { id content tags } } }
"""
READ = "query ($id: ID!) { memory(id: $id) { id content tags } }"
PROBE_TIMEOUT = 30.0
"""Seconds a run waits for the first successful request before it counts as failed."""


class Writer(threading.Thread):
    """Sends writes one at a time and keeps the acknowledged ones."""

    def __init__(self, url: str, limit: int) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.limit = limit
        self.acknowledged: dict[str, dict[str, Any]] = {}
        self.failed = 0
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30.0) as http:
            for n in range(self.limit):
                if self.stop.is_set():
                    return
                item = {"content": f"recovery write {n} {os.urandom(4).hex()}", "tags": [f"n{n}"]}
                try:
                    body = http.post(
                        "/graphql", json={"query": REMEMBER, "variables": {"input": item}}
                    ).json()
                except (httpx.TransportError, ValueError):
                    self.failed += 1
                    continue
                if body.get("errors"):
                    self.failed += 1
                else:
                    memory = body["data"]["remember"]["memory"]
                    self.acknowledged[memory["id"]] = memory


def one_run(data_dir: Path, writes_before: int, writes_after: int) -> tuple[float, int, int, int]:
    """Seconds to the first answer after the kill, acknowledged writes, lost, failed."""
    with ServerProcess(data_dir, env=ENV) as server:
        writer = Writer(server.url, limit=100_000)
        writer.start()
        _wait_for(lambda: len(writer.acknowledged) >= writes_before, "writes before the kill")
        database = server.database_pid()
        assert database is not None, "no database pid"
        probe_id = min(writer.acknowledged.copy())
        with httpx.Client(base_url=server.url, timeout=PROBE_TIMEOUT) as http:
            killed = time.monotonic()
            os.kill(database, signal.SIGKILL)
            while True:
                try:
                    body = http.post(
                        "/graphql", json={"query": READ, "variables": {"id": probe_id}}
                    ).json()
                except httpx.TransportError:
                    body = {"errors": ["transport"]}
                if not body.get("errors") and body["data"]["memory"]:
                    recovered = time.monotonic() - killed
                    break
                if time.monotonic() - killed > PROBE_TIMEOUT:
                    raise RuntimeError(f"no answer {PROBE_TIMEOUT:g} s after the kill: {body}")
            target = len(writer.acknowledged) + writes_after
            _wait_for(lambda: len(writer.acknowledged) >= target, "writes after the kill")
            writer.stop.set()
            writer.join(30)
            lost = sum(
                1 for memory in writer.acknowledged.values() if _read(http, memory["id"]) != memory
            )
        assert server.database_pid() not in (None, database), "the database was not restarted"
    return recovered, len(writer.acknowledged), lost, writer.failed


def baseline(data_dir: Path) -> float:
    """Seconds from starting ``graphmem serve`` on existing data to its first answer."""
    started = time.monotonic()
    with ServerProcess(data_dir, env=ENV):
        return time.monotonic() - started


def _read(http: httpx.Client, memory_id: str) -> dict[str, Any] | None:
    body = http.post("/graphql", json={"query": READ, "variables": {"id": memory_id}}).json()
    return None if body.get("errors") else body["data"]["memory"]


def _wait_for(condition: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.01)


def main(
    runs: Annotated[int, typer.Option(min=1, max=20, help="Kills, each on a fresh server.")] = 5,
    writes: Annotated[
        int, typer.Option(min=1, max=10_000, help="Acknowledged writes before and after a kill.")
    ] = 100,
) -> None:
    times: list[float] = []
    total_lost = 0
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="gmrec-") as root:
        for run in range(1, runs + 1):
            recovered, acknowledged, lost, failed = one_run(Path(root) / f"r{run}", writes, writes)
            times.append(recovered)
            total_lost += lost
            print(
                f"run {run}: first answer {recovered * 1000:.0f} ms after kill -9; "
                f"{acknowledged} writes acknowledged, {lost} lost, "
                f"{failed} failed (not acknowledged)"
            )
        manual = baseline(Path(root) / "r1")
    print(f"median time to the first answer: {statistics.median(times) * 1000:.0f} ms")
    print(f"baseline, graphmem serve restarted by hand: {manual * 1000:.0f} ms to its first answer")
    print(f"acknowledged writes lost: {total_lost}")
    if total_lost:
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
