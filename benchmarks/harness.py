"""Where a benchmark runs: a fresh data directory, its embedded FalkorDB, and
``graphmem serve`` as a child process.

Everything lives in a temporary directory that is removed afterwards, every
socket is local (a unix socket, or 127.0.0.1), and every child process is
stopped before the run ends, even when it fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import httpx
from falkordb import FalkorDB, Graph

from benchmarks import baseline
from graphmem.api import GraphMem
from graphmem.settings import Settings
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore

GRAPH = "graphmem_bench"
RAW_GRAPH = "raw_bench"
PROJECT = "bench"
HOST = "127.0.0.1"
PLACEMENT = {
    f"GRAPHMEM_{name}" for name in ("DATA_DIR", "FALKORDB_URL", "GRAPH", "PROJECT", "HOST", "PORT")
}


class BenchError(RuntimeError):
    """The benchmark could not measure what it set out to measure."""


class BenchEnv:
    """A throwaway data directory with graphmem and a raw graph side by side.

    Both sides talk to the same embedded server over the same kind of
    connection, so what differs between them is graphmem alone.
    """

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self.data_dir = Path()
        self.gm: GraphMem
        self.raw: Graph
        self._db: FalkorDB

    def __enter__(self) -> BenchEnv:
        with self._stack as stack:
            self.data_dir = Path(tempfile.mkdtemp(dir=_scratch_parent(), prefix="gmbench-"))
            stack.callback(shutil.rmtree, self.data_dir, ignore_errors=True)
            settings = Settings(
                data_dir=self.data_dir, graph=GRAPH, project=PROJECT, falkordb_url=None
            )
            self.gm = stack.enter_context(GraphMem.open(settings))
            # Same socket and client name as the server graphmem started, so
            # graphmem still stops it on close: it counts these as its own.
            paths = EmbeddedFalkorDB(self.data_dir)
            self._db = FalkorDB(
                unix_socket_path=str(paths.socket_path),
                socket_timeout=30.0,
                client_name=paths.client_name,
            )
            stack.callback(self._db.close)
            self.raw = self._db.select_graph(RAW_GRAPH)
            baseline.prepare(self.raw)
            self._stack = stack.pop_all()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stack.close()

    def scratch_graphs(self, name: str) -> tuple[GraphMem, Graph]:
        """A graphmem store and a raw graph to warm up on, dropped when the run ends."""
        store = FalkorStore(self._db, f"{GRAPH}_{name}")
        store.setup_schema()
        self._stack.callback(store.drop)
        raw = self._db.select_graph(f"{RAW_GRAPH}_{name}")
        baseline.prepare(raw)
        self._stack.callback(raw.delete)
        return GraphMem(store, project_id=PROJECT), raw

    @contextlib.contextmanager
    def served(self, startup_timeout: float = 30.0) -> Iterator[str]:
        """Run ``graphmem serve`` on this data directory; yield its base URL."""
        port = free_port()
        # Settings that say where the data lives and where to listen are this
        # run's own; any other GRAPHMEM_* setting applies to both sides alike.
        env = {k: v for k, v in os.environ.items() if k not in PLACEMENT}
        env.update(
            GRAPHMEM_DATA_DIR=str(self.data_dir), GRAPHMEM_GRAPH=GRAPH, GRAPHMEM_PROJECT=PROJECT
        )
        log_path = self.data_dir / "serve.log"
        command = [sys.executable, "-m", "graphmem", "serve", "--host", HOST, "--port", str(port)]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [*command, "--log-level", "warning"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            url = f"http://{HOST}:{port}"
            _wait_healthy(process, url, startup_timeout, log_path)
            yield url
        finally:
            _stop(process)


def _scratch_parent() -> str:
    """``$TMPDIR`` when it is short enough, else ``/tmp``: the server's unix
    socket lives in the data directory, and its path is length-limited."""
    chosen = os.environ.get("TMPDIR", "")
    return chosen if chosen and len(chosen) <= 60 else "/tmp"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _wait_healthy(process: subprocess.Popen[bytes], url: str, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"graphmem serve exited at start: {_tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        time.sleep(0.1)
    raise BenchError(f"graphmem serve was not healthy within {timeout:.0f}s: {_tail(log)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Ctrl-C first, so the server closes its store in order; a kill only if it hangs."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").splitlines()[-5:]) or "no output"
    except OSError:
        return "no log"


@contextlib.contextmanager
def environ(**values: str) -> Iterator[None]:
    """Set environment variables for a block (settings are read from them)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
