"""``python -m benchmarks.restart_history``: restarts of a store with vectors after a long history.

For each scale (``--scales``, 10,000 and 100,000 memories by default) one
embedded FalkorDB store is built and given a history, then killed and
restarted three ways:

- **database kill**: a process using the store through the Python API (its
  supervisor running, the default embedder loaded) sees its database killed
  with ``kill -9``; measured to its first successful read (``get``) and to its
  first answered hybrid search;
- **whole-process kill**: ``graphmem serve`` and its database are killed
  together with ``kill -9`` and a new ``graphmem serve`` is started at once,
  as systemd or Kubernetes would; measured from the kill to the first answered
  GraphQL ``memory`` query (the model's load included) and to the first
  answered ``search``;
- **cold start**: the server stopped cleanly (the database shut down), then
  started; measured from the start to the same two answers.

Each is printed with the append-only file's snapshot (``*.base.rdb``) and the
writes after it (``*.incr.aof``) at the kill, and with the database's own
account of its load from its log: the snapshot's nodes, the index built from
them, and the writes replayed.

The store. Memories come from ``benchmarks.data`` (every memory type, sessions,
relations, supersessions) through ``remember_many``, graphmem's batch path,
their vectors by the bulk path of ``benchmarks.retrieval_scale`` (written before
the vector index, which is then built once). The vectors are real 384-d
vectors of the default embedder (all-MiniLM-L6-v2 on ONNX Runtime): the first
``--pool`` memories' texts are embedded for real (cached on disk between runs)
and memory ``i`` beyond them takes the vector of memory ``i mod pool`` turned by
a small random rotation (cosine about 0.97 to it), so the index holds ``n``
distinct vectors clustered as real text is.

The history. ``--updates`` times ``n`` text updates and ``--accesses`` times
``n`` accesses, in random order over random memories: graphmem's own
``update_memory`` (with the new text's vector, taken from the pool) and
``record_access`` statements with the parameters its services send, in
pipelines of 500 from one connection, as many clients would send them.

``--delayed`` also measures the same store and history with FalkorDB's
``DELAY_INDEXING yes`` (indexes built in the background after a load, not
before the server answers): the data directory is copied after the history and
every figure is measured again on the copy (``graphmem serve`` started with the
same setting). ``--rewrite-mib`` sets the bound at which the append-only file
is rewritten (``AOF_REWRITE_MIN_BYTES``), in the history and in every
measurement; the history's rewrites are counted and timed.

Each measurement runs in a child process; one that has not answered after
``--give-up`` seconds is stopped and printed as a lower bound.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import redis
from falkordb import FalkorDB

from benchmarks import baseline, retrieval_scale
from benchmarks.data import generate
from benchmarks.server_process import ServerProcess
from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.domain.text import content_key
from graphmem.domain.viewer import with_viewer
from graphmem.services.embeddings import MiniLMEmbedder, memory_text
from graphmem.settings import Settings
from graphmem.store import embedded
from graphmem.store.dialect import Dialect
from graphmem.store.falkordb import FalkorStore, params_header
from graphmem.store.statements import Statements

GRAPH = "graphmem"
PROJECT = retrieval_scale.PROJECT
CACHE = Path(tempfile.gettempdir()) / "graphmem-bench-cache"
PIPELINE = 500
DELAYED = ("DELAY_INDEXING", "yes")
SERVE_ENV = {
    "GRAPHMEM_PROJECT": PROJECT,
    "GRAPHMEM_SCHEDULER": "false",
    "GRAPHMEM_DURABILITY": "balanced",
}
READ = "query ($id: ID!) { memory(id: $id) { id content } }"
SEARCH = "query ($q: String!) { search(query: $q, limit: 5) { hits { memory { id } } } }"


# -- the store and its history ---------------------------------------------


def pool_vectors(pool: int) -> tuple[np.ndarray, list[str]]:
    """Real vectors of the first ``pool`` memories' texts, and those texts."""
    texts = [memory_text(m["content"], m.get("rationale")) for m in generate(pool, seed=7).memories]
    embedder = MiniLMEmbedder()
    vectors = retrieval_scale.pool_vectors(embedder, texts, CACHE / f"pool-{pool}-seed7.npy")
    return vectors, texts


def build(data_dir: Path, n: int, vectors: np.ndarray) -> list[str]:
    """``n`` memories with vectors on a fresh embedded server; their ids."""
    server = embedded.EmbeddedFalkorDB(data_dir)
    server.start()
    db = FalkorDB(unix_socket_path=str(server.socket_path), socket_timeout=3600.0)
    try:
        store = FalkorStore(db, GRAPH)
        raw = db.select_graph(GRAPH)
        for ddl in store.statements.script("schema"):
            if "VECTOR INDEX" not in ddl:
                baseline.create_index(raw, ddl)
        gm = GraphMem(store, project_id=PROJECT)
        took = retrieval_scale.bulk_load(gm, raw, n, vectors, log=print)
        print(
            f"  {n:,} memories in {took['memories_s']:.0f} s, their vectors in "
            f"{took['vectors_s']:.0f} s, the vector index in {took['index_build_s']:.0f} s",
            flush=True,
        )
        rows = raw.ro_query("MATCH (m:Memory) RETURN m.id").result_set
        return [row[0] for row in rows]
    finally:
        db.close()
        server.stop(force=True)


def history(
    data_dir: Path,
    figures: dict[str, float],
    writes: Writes,
    updates: int,
    accesses: int,
    tail: int,
) -> float:
    """The updates and accesses, on a server started as shipped (its supervisor
    rewriting the append-only file at its bound); seconds taken. Then one
    rewrite, timed, and writes of the same kind until ``tail`` bytes follow the
    snapshot, the most a kill can find at that bound."""
    server = embedded.EmbeddedFalkorDB(data_dir)
    server.start()
    supervisor = server.supervise()  # tends the append-only file, as in a graphmem process
    client = redis.Redis(unix_socket_path=str(server.socket_path), socket_timeout=3600.0)
    kinds = [True] * updates + [False] * accesses
    writes.rng.shuffle(kinds)
    began = time.perf_counter()
    try:
        _send(client, (writes.next(is_update) for is_update in kinds))
        took = time.perf_counter() - began
        figures["rewrites"] = float(client.info("stats").get("total_forks", 0))
        supervisor.stop()
        figures.update(_rewrite(client))
        while embedded._aof_bytes(data_dir, "*.incr.aof") < tail:
            _send(client, (writes.next(n % 6 == 0) for n in range(100)))
        return took
    finally:
        client.close()
        supervisor.stop()
        server.stop(force=True)


class Writes:
    """The history's writes: graphmem's own ``update_memory`` (with the new
    text's vector, from the pool) and ``record_access`` statements, with the
    parameters its services send, on random memories."""

    def __init__(self, ids: list[str], vectors: np.ndarray, texts: list[str]) -> None:
        self.ids, self.vectors, self.texts = ids, vectors, texts
        self.rng = random.Random(11)
        self.statements = Statements(Dialect.FALKORDB)
        self.sent = 0

    def next(self, is_update: bool) -> str:
        self.sent += 1
        memory_id = self.rng.choice(self.ids)
        now = 1.9e9 + self.sent
        params: dict[str, Any] = {"id": memory_id, "project_id": PROJECT, "now": now}
        name = "record_access"
        if is_update:
            source = self.rng.randrange(len(self.texts))
            content = f"{self.texts[source]} (revised {self.sent})"
            params = {
                "id": memory_id,
                "project_id": PROJECT,
                "changes": {
                    "content": content,
                    "content_key": content_key(content),
                    "updated_at": now,
                },
                "reembed": True,
                "embedding": array("f", self.vectors[source].tobytes()),
            }
            name = "update_memory"
        return params_header(with_viewer(params)) + self.statements[name]


def _send(client: redis.Redis, texts: Iterator[str]) -> None:
    """In pipelines of ``PIPELINE`` from one connection, as many clients would send them."""
    pipe = client.pipeline(transaction=False)
    for n, text in enumerate(texts):
        pipe.execute_command("GRAPH.QUERY", GRAPH, text)
        if n % PIPELINE == PIPELINE - 1:
            pipe.execute()
    pipe.execute()


def _rewrite(client: redis.Redis) -> dict[str, float]:
    """One rewrite of the append-only file, awaited: what it takes at this
    scale (the child's whole run, and the fork that starts it, during which
    the server answers nothing)."""
    with contextlib.suppress(redis.ResponseError):  # one already under way
        client.bgrewriteaof()
    began = time.perf_counter()
    while True:
        persistence = client.info("persistence")
        if not int(persistence["aof_rewrite_in_progress"]) and not int(
            persistence["aof_rewrite_scheduled"]
        ):
            break
        time.sleep(0.05)
    return {
        "rewrite_s": time.perf_counter() - began,
        "fork_ms": float(client.info("stats").get("latest_fork_usec", 0)) / 1000,
    }


# -- measurements, each in a child process ----------------------------------


def aof_sizes(data_dir: Path) -> dict[str, int]:
    return {
        "base_bytes": embedded._aof_bytes(data_dir, "*.base.*"),
        "incr_bytes": embedded._aof_bytes(data_dir, "*.incr.aof"),
    }


def load_account(data_dir: Path, since: float) -> dict[str, float]:
    """The last load's phases, from the database's log: the snapshot's nodes,
    the indexes built from them, the writes replayed (seconds)."""
    stamp = re.compile(r"^\d+:\w (\d+ \w+ \d+ [\d:.]+) \* (.*)$")
    events: list[tuple[float, str]] = []
    for line in (data_dir / embedded.LOG_NAME).read_text(errors="replace").splitlines():
        match = stamp.match(line)
        if match:
            at = time.mktime(time.strptime(match[1].split(".")[0], "%d %b %Y %H:%M:%S"))
            at += float("0." + match[1].split(".")[1])
            if at >= since - 1:
                events.append((at, match[2]))
    account: dict[str, float] = {}
    started = next((at for at, text in events if "Reading RDB base file" in text), None)
    indexing = next((at for at, text in events if "Constructing indexes" in text), None)
    decoded = next((at for at, text in events if "Done decoding graph" in text), None)
    if started is not None and indexing is not None and decoded is not None:
        account["snapshot_s"] = indexing - started
        account["index_s"] = decoded - indexing
    for _, text in events:
        replay = re.search(r"DB loaded from incr file .*: ([\d.]+) seconds", text)
        if replay:
            account["replay_s"] = float(replay[1])
        base = re.search(r"DB loaded from base file .*: ([\d.]+) seconds", text)
        if base and "index_s" not in account:
            account["snapshot_s"] = float(base[1])
    return account


def database_kill(data_dir: Path, probe: str, query: str) -> dict[str, Any]:
    """In this (child) process: the store open as a graphmem process has it,
    its database killed; seconds to the first read and the first search."""
    gm = GraphMem.open(Settings(data_dir=data_dir, project=PROJECT, durability="balanced"))
    try:
        gm.warm()
        gm.get(probe)
        figures: dict[str, Any] = aof_sizes(data_dir)
        pid = int((data_dir / embedded.PID_NAME).read_text())
        wall = time.time()
        began = time.perf_counter()
        os.kill(pid, signal.SIGKILL)
        figures["read_s"] = _first(lambda: gm.get(probe), began)
        print(json.dumps(figures), flush=True)
        figures["search_s"] = _first(lambda: gm.search(query, limit=5), began)
        figures.update(load_account(data_dir, wall))
        return figures
    finally:
        gm.close()


def _first(call: Any, began: float) -> float:
    """Seconds from ``began`` to the first call of ``call`` that succeeds."""
    while True:
        try:
            call()
            return time.perf_counter() - began
        except StoreUnavailableError:
            time.sleep(0.01)


def serve_env(data_dir: Path) -> dict[str, str]:
    """``graphmem serve``'s environment: with the settings under measurement
    (``--delayed``, ``--rewrite-mib``) applied by a ``sitecustomize`` module
    this run writes, since the server takes them from no setting of its own."""
    patch = data_dir.parent / "serve-settings"
    patch.mkdir(exist_ok=True)
    (patch / "sitecustomize.py").write_text(
        "from graphmem.store import embedded\n"
        f"embedded.MODULE_ARGS = {embedded.MODULE_ARGS!r}\n"
        f"embedded.AOF_REWRITE_MIN_BYTES = {embedded.AOF_REWRITE_MIN_BYTES!r}\n"
    )
    path = os.pathsep.join(p for p in (str(patch), os.environ.get("PYTHONPATH", "")) if p)
    return {**SERVE_ENV, "PYTHONPATH": path}


def whole_process(data_dir: Path, probe: str, query: str, give_up: float) -> dict[str, Any]:
    """``graphmem serve`` and its database killed together, a new one started."""
    env = serve_env(data_dir)
    first = ServerProcess(data_dir, env=env, startup_timeout=give_up).start()
    _answered(first.url, READ, {"id": probe}, time.perf_counter(), give_up)
    figures: dict[str, Any] = aof_sizes(data_dir)
    wall = time.time()
    began = time.perf_counter()
    first.kill()
    with ServerProcess(data_dir, env=env, startup_timeout=give_up) as again:
        figures["read_s"] = _answered(again.url, READ, {"id": probe}, began, give_up)
        print(json.dumps(figures), flush=True)
        figures["search_s"] = _answered(again.url, SEARCH, {"q": query}, began, give_up)
    figures.update(load_account(data_dir, wall))
    return figures


def cold_start(data_dir: Path, probe: str, query: str, give_up: float) -> dict[str, Any]:
    """The server and its database stopped in order, then ``graphmem serve`` started."""
    figures: dict[str, Any] = aof_sizes(data_dir)
    wall = time.time()
    began = time.perf_counter()
    env = serve_env(data_dir)
    with ServerProcess(data_dir, env=env, startup_timeout=give_up) as server:
        figures["read_s"] = _answered(server.url, READ, {"id": probe}, began, give_up)
        print(json.dumps(figures), flush=True)
        figures["search_s"] = _answered(server.url, SEARCH, {"q": query}, began, give_up)
    figures.update(load_account(data_dir, wall))
    return figures


def _answered(
    url: str, query: str, variables: dict[str, str], began: float, give_up: float
) -> float:
    """Seconds from ``began`` to the first answer without errors."""
    with httpx.Client(base_url=url, timeout=give_up) as http:
        while True:
            with contextlib.suppress(httpx.TransportError, ValueError):
                body = http.post("/graphql", json={"query": query, "variables": variables}).json()
                if not body.get("errors"):
                    return time.perf_counter() - began
            if time.perf_counter() - began > give_up:
                raise TimeoutError(f"no answer after {give_up:.0f} s")
            time.sleep(0.01)


def measured(
    kind: str, data_dir: Path, probe: str, query: str, delayed: bool, give_up: float
) -> dict[str, Any]:
    """One measurement from a child process, or what it printed before it gave up."""
    child = subprocess.Popen(
        [
            sys.executable, "-m", "benchmarks.restart_history", "--measure", kind,
            "--data-dir", str(data_dir), "--probe", probe, "--query", query,
            "--give-up", str(give_up), *(["--delayed"] if delayed else []),
            "--rewrite-mib", str(embedded.AOF_REWRITE_MIN_BYTES / 2**20),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    figures: dict[str, Any] = {}
    try:
        child.wait(timeout=give_up * 2 + 60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        figures["gave_up"] = True
    for line in (child.stdout.read() if child.stdout else "").splitlines():
        with contextlib.suppress(ValueError):
            figures.update(json.loads(line))
    _stop_leftovers(data_dir)
    return figures


def _stop_leftovers(data_dir: Path) -> None:
    """A database a killed measurement left running is stopped in order."""
    server = embedded.EmbeddedFalkorDB(data_dir)
    if server.pid() is not None:
        server.stop(force=True)


def settings(args: argparse.Namespace) -> None:
    """The variant under measurement, in this process's embedded module."""
    embedded.AOF_REWRITE_MIN_BYTES = int(args.rewrite_mib * 2**20)
    if args.delayed and DELAYED[0] not in embedded.MODULE_ARGS:
        embedded.MODULE_ARGS = (*embedded.MODULE_ARGS, *DELAYED)


def measure_in_child(args: argparse.Namespace) -> None:
    settings(args)
    kinds = {
        "database": lambda: database_kill(args.data_dir, args.probe, args.query),
        "process": lambda: whole_process(args.data_dir, args.probe, args.query, args.give_up),
        "cold": lambda: cold_start(args.data_dir, args.probe, args.query, args.give_up),
    }
    print(json.dumps(kinds[args.measure]()), flush=True)


# -- the run ----------------------------------------------------------------


def _row(way: str, kind: str, figures: dict[str, Any], give_up: float) -> str:
    def seconds(key: str) -> str:
        value = figures.get(key)
        if isinstance(value, float):
            return f"{value:.1f}"
        if key in ("read_s", "search_s"):
            return f"> {give_up:.0f}" if figures.get("gave_up") else "failed"
        return "-"

    return (
        f"{way:<9}{kind:<16}{figures.get('base_bytes', 0) / 1e6:>9.1f}"
        f"{figures.get('incr_bytes', 0) / 1e6:>9.1f}{seconds('read_s'):>9}{seconds('search_s'):>10}"
        f"{seconds('snapshot_s'):>10}{seconds('index_s'):>9}{seconds('replay_s'):>9}"
    )


def run_scale(
    root: Path, n: int, args: argparse.Namespace, vectors: np.ndarray, texts: list[str]
) -> list[str]:
    data_dir = root / f"s{n}"
    print(f"{n:,} memories:", flush=True)
    ids = build(data_dir, n, vectors)
    updates, accesses = int(args.updates * n), int(args.accesses * n)
    rewrites: dict[str, float] = {}
    tail = int(args.tail_mib * 2**20)
    took = history(data_dir, rewrites, Writes(ids, vectors, texts), updates, accesses, tail)
    sizes = aof_sizes(data_dir)
    print(
        f"  history: {updates:,} text updates and {accesses:,} accesses in {took:.0f} s; "
        f"snapshot {sizes['base_bytes'] / 1e6:.1f} MB, writes after it "
        f"{sizes['incr_bytes'] / 1e6:.1f} MB; {rewrites['rewrites']:.0f} rewrites at "
        f"{embedded.AOF_REWRITE_MIN_BYTES / 2**20:g} MiB during it; one rewrite takes "
        f"{rewrites['rewrite_s']:.1f} s (fork {rewrites['fork_ms']:.0f} ms)",
        flush=True,
    )
    kinds = {"database": "database kill", "process": "whole process", "cold": "cold start"}
    chosen = args.ways.split(",")
    ways = [] if args.only_delayed else [("shipped", data_dir, False, chosen)]
    if args.delayed:
        copy = root / f"s{n}-delayed"
        shutil.copytree(data_dir, copy, ignore=shutil.ignore_patterns("*.sock", "*.pid", "*.log"))
        ways.append(("delayed", copy, True, chosen))
    probe, query = ids[len(ids) // 2], "why does the deploy time out"
    rows = []
    for way, directory, delayed, chosen in ways:
        for kind in chosen:
            figures = measured(kind, directory, probe, query, delayed, args.give_up)
            rows.append(_row(way, kinds[kind], figures, args.give_up) + f"   {n:,}")
            print("  " + rows[-1], flush=True)
        shutil.rmtree(directory, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.restart_history")
    parser.add_argument("--scales", default="10000,100000", help="memories, comma-separated")
    parser.add_argument("--pool", type=int, default=4000, help="memories embedded for real")
    parser.add_argument("--updates", type=float, default=0.2, help="text updates per memory")
    parser.add_argument("--accesses", type=float, default=1.0, help="accesses per memory")
    parser.add_argument("--delayed", action="store_true", help="also with DELAY_INDEXING yes")
    parser.add_argument("--only-delayed", action="store_true", help="skip the shipped way")
    parser.add_argument(
        "--ways", default="database,process,cold", help="restarts measured, comma-separated"
    )
    parser.add_argument(
        "--rewrite-mib",
        type=float,
        default=embedded.AOF_REWRITE_MIN_BYTES / 2**20,
        help="MiB of writes after the snapshot at which the append-only file is rewritten",
    )
    parser.add_argument(
        "--tail-mib",
        type=float,
        default=0.0,
        help="MiB written after a last rewrite, left to replay (just under --rewrite-mib: "
        "the most a kill finds)",
    )
    parser.add_argument("--give-up", type=float, default=300.0, help="seconds a figure may take")
    parser.add_argument(
        "--measure", choices=("database", "process", "cold"), help=argparse.SUPPRESS
    )
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--query", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure_in_child(args)
        return
    settings(argparse.Namespace(rewrite_mib=args.rewrite_mib, delayed=False))
    began = time.perf_counter()
    vectors, texts = pool_vectors(args.pool)
    print(f"{len(texts):,} texts embedded for real (or read from {CACHE})", flush=True)
    root = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmrh-"))
    rows: list[str] = []
    try:
        for n in (int(s) for s in args.scales.split(",") if s.strip()):
            rows += run_scale(root, n, args, vectors, texts)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"{'way':<9}{'restart':<16}{'RDB MB':>9}{'AOF MB':>9}{'read s':>9}{'search s':>10}"
        f"{'nodes s':>10}{'index s':>9}{'replay s':>9}   memories"
    )
    print("\n".join(rows))
    print(f"run took {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
