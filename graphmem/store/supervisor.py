"""Keeping the embedded database up: notice it died, start it again, or give up.

The FalkorDB server is a separate process, so it can die on its own: killed
(``kill -9``, the OOM killer) or exiting (a full disk in strict mode). Every
graphmem process that uses the server watches it; when it is gone, the first
one to notice starts a new server on the same data directory, which replays
the append-only file, and the others find it answering and reuse it. Restarts
are bounded: after ``limit`` of them within ``window`` seconds the supervisor
gives up, logs one fatal line and calls the handlers registered with
``when_unrecoverable`` (``graphmem serve`` exits non-zero there, so that its
own supervisor, systemd or Kubernetes, restarts the whole process). While the
server lives, the watching thread also tends it every ``tend_every`` seconds
(the embedded server rewrites its append-only file there once it has grown).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Protocol

from graphmem.domain.errors import StoreUnavailableError

log = logging.getLogger(__name__)

BACKOFF = (0.0, 0.5, 1.0, 2.0, 4.0)
"""Seconds before each restart attempt in a row; the last repeats."""
RESTART_LIMIT = 5
RESTART_WINDOW = 60.0
TEND_SECONDS = 5.0
"""Seconds between two tendings of a living server."""


class State(Enum):
    SERVING = "serving"
    RESTARTING = "restarting"
    FAILED = "failed"
    STOPPED = "stopped"


class Supervised(Protocol):
    """What the supervisor needs of a server."""

    def pid(self) -> int | None:
        """The server's process id, ``None`` if it has none (not running)."""
        ...

    def restart(self) -> None:
        """Make a server answer again on the same data; raises if it cannot."""
        ...

    def last_words(self) -> str:
        """The end of the server's own log: why it stopped, when it said so."""
        ...

    def tend(self) -> None:
        """Upkeep of a living server, every ``tend_every`` seconds; raising
        only logs."""
        ...


_unrecoverable: list[Callable[[str], None]] = []


def when_unrecoverable(handler: Callable[[str], None]) -> None:
    """Call ``handler(reason)`` when a supervisor gives up on its server.

    A process-wide choice: a server process should exit then, while a library
    user's process carries on and gets ``STORE_UNAVAILABLE`` from every call.
    """
    _unrecoverable.append(handler)


class Supervisor:
    """Watches one server from a daemon thread and restarts it when it dies."""

    def __init__(
        self,
        server: Supervised,
        *,
        name: str,
        limit: int = RESTART_LIMIT,
        window: float = RESTART_WINDOW,
        backoff: Sequence[float] = BACKOFF,
        monotonic: Callable[[], float] = time.monotonic,
        on_give_up: Callable[[str], None] | None = None,
        tend_every: float = TEND_SECONDS,
    ) -> None:
        self.server = server
        self.name = name
        self.limit = limit
        self.window = window
        self.backoff = tuple(backoff)
        self.tend_every = tend_every
        self._monotonic = monotonic
        self._on_give_up = on_give_up
        self._restarts: deque[float] = deque()
        self._state = State.SERVING
        self.reason: str | None = None
        """Why the server is not serving, in words safe to show anyone."""
        self._changed = threading.Condition()
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name=f"supervise-{name}", daemon=True)

    @property
    def state(self) -> State:
        return self._state

    def start(self) -> Supervisor:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching (before a planned shutdown, which is not a crash)."""
        self._set(State.STOPPED, "the store is closed")
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def await_serving(self, timeout: float) -> bool:
        """Wait while a restart is under way; whether the server serves now."""
        deadline = self._monotonic() + timeout
        with self._changed:
            if self._state is State.SERVING and self.server.pid() is None:
                # It died a moment ago and the watching thread is about to notice.
                self._changed.wait_for(lambda: self._state is not State.SERVING, timeout)
            self._changed.wait_for(
                lambda: self._state is not State.RESTARTING,
                max(0.0, deadline - self._monotonic()),
            )
            return self._state is State.SERVING

    # -- the watching thread ---------------------------------------------

    def _run(self) -> None:
        while not self._stopped():
            if not self._wait_for_death():
                return
            if self._stopped():
                return
            self._recover()
            if self._state is State.FAILED:
                return

    def _stopped(self) -> bool:
        """A call, not an inline test: stop() sets the state from another thread
        while this one waits, so no earlier reading of it may be trusted."""
        return self._state is State.STOPPED

    def _wait_for_death(self) -> bool:
        """Block until the server process ends (True) or ``stop`` is called
        (False), tending the server every ``tend_every`` seconds meanwhile."""
        pid = self.server.pid()
        if pid is None:
            return True
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return True
        try:
            while True:
                ready, _, _ = select.select([pidfd, self._wake_read], [], [], self.tend_every)
                if ready:
                    return pidfd in ready and self._state is not State.STOPPED
                self._tend()
        finally:
            os.close(pidfd)

    def _tend(self) -> None:
        try:
            self.server.tend()
        except Exception:
            # Upkeep must not end the watch: the server still has to be restarted if it dies.
            log.exception("tending the FalkorDB server of %s failed", self.name)

    def _recover(self) -> None:
        log.error(
            "the embedded FalkorDB server of %s died (its log ends: %s); restarting it",
            self.name,
            self.server.last_words(),
        )
        self._set(State.RESTARTING, "the graph database is restarting")
        attempt = 0
        while self._state is State.RESTARTING:
            now = self._monotonic()
            while self._restarts and now - self._restarts[0] > self.window:
                self._restarts.popleft()
            if len(self._restarts) >= self.limit:
                self._give_up()
                return
            delay = self.backoff[min(attempt, len(self.backoff) - 1)]
            if delay and self._sleep(delay):
                return
            self._restarts.append(self._monotonic())
            attempt += 1
            try:
                self.server.restart()
            except StoreUnavailableError as exc:
                log.error("restart %d of the FalkorDB server failed: %s", attempt, exc.message)
                continue
            except Exception:
                # Whatever went wrong, the watching thread must not die with it:
                # the attempt counts, and the bound still ends the loop.
                log.exception("restart %d of the FalkorDB server failed", attempt)
                continue
            log.warning("the embedded FalkorDB server of %s serves again", self.name)
            self._set(State.SERVING, None)

    def _give_up(self) -> None:
        reason = (
            f"the embedded FalkorDB server of {self.name} died {self.limit} times within "
            f"{self.window:g} s; giving up (its log ends: {self.server.last_words()})"
        )
        log.critical("FATAL: %s", reason)
        self._set(State.FAILED, "the graph database stopped and could not be restarted")
        handlers = [*_unrecoverable, *([self._on_give_up] if self._on_give_up else [])]
        for handler in handlers:
            handler(reason)

    def _sleep(self, seconds: float) -> bool:
        """Wait out a backoff; True if ``stop`` was called meanwhile."""
        ready, _, _ = select.select([self._wake_read], [], [], seconds)
        return bool(ready)

    def _set(self, state: State, reason: str | None) -> None:
        with self._changed:
            if self._state is State.STOPPED:
                return
            self._state = state
            self.reason = reason
            self._changed.notify_all()
