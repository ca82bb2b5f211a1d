"""``python -m benchmarks.restart_history``: restart time after a long write history.

A store of ``--memories`` memories, each written ``--writes`` times more (one
statement each, as a ``recordAccess`` or an update is), on the embedded
FalkorDB in strict mode. Then, on the same files, two ways taking turns:

- ``history kept``: the append-only file is never rewritten
  (``AOF_REWRITE_MIN_BYTES`` out of reach), as before compaction existed: a
  start replays every statement;
- ``compacted``: as shipped: the start finds the history longer than the data
  and rewrites it in the background; measured once that rewrite is done.

For each: the cold start (``GraphMem.open`` to the first successful read) and
the time from ``kill -9`` of the database to the first successful read through
the same ``GraphMem`` (the supervisor restarts the server). Printed with the
append-only file's size and the ratio of the two ways.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import redis

from graphmem.api import GraphMem
from graphmem.config import Settings
from graphmem.store import embedded

SHIPPED = embedded.AOF_REWRITE_MIN_BYTES
NEVER = 1 << 50


def aof_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in (data_dir / embedded.AOF_DIR).glob("appendonly.aof.*"))


def build(data_dir: Path, memories: int, writes: int) -> list[str]:
    """The store and its history; returns a few memory ids to read."""
    settings = Settings(data_dir=data_dir, embedder="none", durability="balanced")
    with GraphMem.open(settings) as gm:
        ids: list[str] = []
        for start in range(0, memories, 1000):
            batch = [
                {"content": f"memory {n}: the build of service {n % 97} takes {n % 13} minutes"}
                for n in range(start, min(memories, start + 1000))
            ]
            ids += gm.remember_many(batch, dedup=False)
        client = redis.Redis(unix_socket_path=str(data_dir / embedded.SOCKET_NAME))
        graph = gm.store._graph.name  # type: ignore[attr-defined]
        statement = (
            "CYPHER id=$id MATCH (m:Memory {id: $id}) "
            "SET m.access_count = coalesce(m.access_count, 0) + 1"
        )
        for _ in range(writes):
            pipe = client.pipeline(transaction=False)
            for n, memory_id in enumerate(ids):
                pipe.execute_command(
                    "GRAPH.QUERY", graph, statement.replace("$id", repr(memory_id), 1)
                )
                if n % 2000 == 1999:
                    pipe.execute()
            pipe.execute()
        client.close()
    return ids[:: max(1, len(ids) // 10)]


def measure(data_dir: Path, probe: list[str]) -> tuple[float, float]:
    """(cold start to the first read, kill -9 of the database to the first read)."""
    settings = Settings(data_dir=data_dir, embedder="none", durability="strict")
    began = time.perf_counter()
    gm = GraphMem.open(settings)
    try:
        assert gm.get(probe[0]) is not None
        cold = time.perf_counter() - began
        _await_rewrite(data_dir)
        pid = int((data_dir / embedded.PID_NAME).read_text())
        began = time.perf_counter()
        os.kill(pid, signal.SIGKILL)
        while True:
            try:
                if gm.get(probe[1]) is not None:
                    break
            except Exception:  # the outage itself, until it ends
                time.sleep(0.01)
        back = time.perf_counter() - began
    finally:
        gm.close()
    return cold, back


def _await_rewrite(data_dir: Path) -> None:
    client = redis.Redis(unix_socket_path=str(data_dir / embedded.SOCKET_NAME))
    try:
        while int(client.info("persistence").get("aof_rewrite_in_progress", 0)):
            time.sleep(0.1)
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.restart_history")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=20, help="writes per memory after its own")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmrestart-"))
    try:
        kept, compacted = root / "kept", root / "compacted"
        embedded.AOF_REWRITE_MIN_BYTES = NEVER
        began = time.perf_counter()
        probe = build(kept, args.memories, args.writes)
        print(
            f"{args.memories:,} memories, {args.writes} writes each after their own: built in "
            f"{time.perf_counter() - began:.0f} s; append-only file {aof_bytes(kept) / 1e6:.1f} MB"
        )
        shutil.copytree(kept, compacted)
        rows = {}
        embedded.AOF_REWRITE_MIN_BYTES = NEVER
        rows["history kept"] = (*measure(kept, probe), aof_bytes(kept))
        embedded.AOF_REWRITE_MIN_BYTES = SHIPPED
        measure(compacted, probe)  # the start that finds the long history rewrites it
        rows["compacted"] = (*measure(compacted, probe), aof_bytes(compacted))
        print(f"{'way':<14}{'AOF MB':>9}{'cold start s':>14}{'kill -9 to read s':>19}")
        for way, (cold, back, size) in rows.items():
            print(f"{way:<14}{size / 1e6:>9.1f}{cold:>14.2f}{back:>19.2f}")
        kept_row, done = rows["history kept"], rows["compacted"]
        print(
            f"compacted / history kept: cold start {done[0] / kept_row[0]:.2f}, "
            f"kill -9 to read {done[1] / kept_row[1]:.2f}"
        )
    finally:
        embedded.AOF_REWRITE_MIN_BYTES = SHIPPED
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
