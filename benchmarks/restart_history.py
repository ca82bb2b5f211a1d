"""``python -m benchmarks.restart_history``: restart time after a long write history.

A store of ``--memories`` memories, each written ``--writes`` times more (one
statement each, as a ``recordAccess`` or an update is), on the embedded
FalkorDB. The same history is written under two policies, each on its own
data directory:

- ``history kept``: the append-only file is never rewritten
  (``AOF_REWRITE_MIN_BYTES`` out of reach), as before compaction existed: a
  start replays every statement ever written;
- ``compacted``: as shipped: the server rewrites the file in the background
  whenever its history has doubled since the last rewrite.

For each, in strict mode: the cold start (``GraphMem.open`` to the first
successful read, what ``graphmem serve`` does before it listens) and the time
from ``kill -9`` of the database to the first successful read through the same
``GraphMem`` (the supervisor restarts the server). Each measurement runs in a
child process; one that has not served after ``--give-up`` seconds is stopped
and printed as a lower bound. Printed with the append-only file's size and the
ratio of the two ways.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

from graphmem.api import GraphMem
from graphmem.domain.config import Settings
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
        _await_rewrite(client)
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
        client = redis.Redis(unix_socket_path=str(data_dir / embedded.SOCKET_NAME))
        _await_rewrite(client)
        client.close()
        print(json.dumps({"cold": cold}), flush=True)
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


def _await_rewrite(client: redis.Redis) -> None:
    while int(client.info("persistence").get("aof_rewrite_in_progress", 0)):
        time.sleep(0.1)


def measured(data_dir: Path, probe: list[str], policy: int, give_up: float) -> tuple[str, str]:
    """Both figures from a child process, or a lower bound where it gave up."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmarks.restart_history",
            "--measure",
            str(data_dir),
            "--policy",
            str(policy),
            *probe,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    figures: dict[str, float] = {}
    deadline = time.monotonic() + give_up
    try:
        child.wait(timeout=give_up)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((data_dir / embedded.PID_NAME).read_text()), signal.SIGKILL)
    for line in (child.stdout.read() if child.stdout else "").splitlines():
        with contextlib.suppress(ValueError):
            figures.update(json.loads(line))
    gave_up = time.monotonic() >= deadline
    if "cold" not in figures:
        return (f"> {give_up:.0f}" if gave_up else "failed"), "not run"
    cold = f"{figures['cold']:.2f}"
    if "back" in figures:
        return cold, f"{figures['back']:.2f}"
    return cold, (f"> {give_up - figures['cold']:.0f}" if gave_up else "failed")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.restart_history")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=20, help="writes per memory after its own")
    parser.add_argument("--ways", default="kept,compacted", help="kept, compacted or both")
    parser.add_argument(
        "--give-up", type=float, default=900.0, help="seconds a measurement may take"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--policy", type=int, default=SHIPPED, help=argparse.SUPPRESS)
    parser.add_argument("probe", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        embedded.AOF_REWRITE_MIN_BYTES = args.policy
        cold, back = measure(args.measure, args.probe)
        print(json.dumps({"cold": cold, "back": back}), flush=True)
        return
    root = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmrestart-"))
    policies = {"history kept": NEVER, "compacted": SHIPPED}
    ways = {w for w in args.ways.split(",")}
    rows: dict[str, tuple[str, str, int]] = {}
    try:
        for way, policy in policies.items():
            if way.split()[-1] not in ways:
                continue
            data_dir = root / way.replace(" ", "-")
            embedded.AOF_REWRITE_MIN_BYTES = policy
            began = time.perf_counter()
            probe = build(data_dir, args.memories, args.writes)
            print(
                f"{way}: {args.memories:,} memories, {args.writes} writes each after their own, "
                f"built in {time.perf_counter() - began:.0f} s; "
                f"append-only file {aof_bytes(data_dir) / 1e6:.1f} MB",
                flush=True,
            )
            cold, back = measured(data_dir, probe, policy, args.give_up)
            rows[way] = (cold, back, aof_bytes(data_dir))
            print(f"{way}: cold start {cold} s, kill -9 to read {back} s", flush=True)
            shutil.rmtree(data_dir, ignore_errors=True)
        print(f"{'way':<14}{'AOF MB':>9}{'cold start s':>14}{'kill -9 to read s':>19}")
        for way, (cold, back, size) in rows.items():
            print(f"{way:<14}{size / 1e6:>9.1f}{cold:>14}{back:>19}")
        if len(rows) == 2:
            kept, done = rows["history kept"], rows["compacted"]
            try:
                print(
                    f"compacted / history kept: cold start {float(done[0]) / float(kept[0]):.3f}, "
                    f"kill -9 to read {float(done[1]) / float(kept[1]):.3f}"
                )
            except ValueError:
                print("compacted / history kept: history kept gave up; its figure is a lower bound")
    finally:
        embedded.AOF_REWRITE_MIN_BYTES = SHIPPED
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
