"""``graphmem serve`` in a child process on 127.0.0.1, as an operator runs it.

Crash and load checks need the server and its embedded database as separate
processes they can signal and kill, not an app inside the test process: only
then does a kill lose what a real crash loses.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

import httpx

from graphmem.store.embedded import PID_NAME

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """One ``python -m graphmem serve`` on a data directory of its own."""

    def __init__(
        self,
        data_dir: Path,
        *,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 120.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.startup_timeout = startup_timeout
        self.env = {
            **os.environ,
            "GRAPHMEM_DATA_DIR": str(self.data_dir),
            "GRAPHMEM_HOST": HOST,
            "GRAPHMEM_PORT": str(self.port),
            "HF_HUB_OFFLINE": "1",
            **(env or {}),
        }
        self.log_path = self.data_dir / f"serve-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ServerProcess:
        """Start the server and wait until ``/healthz`` answers."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "graphmem", "serve", "--log-level", "warning"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.startup_timeout
        with httpx.Client(base_url=self.url, timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"graphmem serve exited at start: {self.log_tail()}")
                with contextlib.suppress(httpx.TransportError):
                    if http.get("/healthz").status_code == 200:
                        return self
                time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"graphmem serve did not answer in time: {self.log_tail()}")

    @property
    def pid(self) -> int:
        assert self.process is not None, "not started"
        return self.process.pid

    def database_pid(self) -> int | None:
        """The embedded FalkorDB server's pid, from the pid file it writes."""
        try:
            return int((self.data_dir / PID_NAME).read_text().strip())
        except (OSError, ValueError):
            return None

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM, as a service manager stops it; returns the exit status."""
        assert self.process is not None, "not started"
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the server and its database: nothing gets to flush or close."""
        database = self.database_pid()
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        if database is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(database, signal.SIGKILL)
            _wait_gone(database)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop gracefully if still running; kill whatever does not stop."""
        if self.process is not None and self.process.poll() is None:
            try:
                self.terminate(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        database = self.database_pid()
        if database is not None and _alive(database):
            with contextlib.suppress(ProcessLookupError):
                os.kill(database, signal.SIGKILL)
            _wait_gone(database)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"redis-server" in cmdline.read()
    except OSError:
        return False


def _wait_gone(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
