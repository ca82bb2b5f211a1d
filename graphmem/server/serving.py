"""A graphmem server's life, from its port to its store's close: the one sequence
``graphmem serve``, ``graphmem mcp --transport http``, the app that owns its
store (``graphql.app.create_app_from_settings``) and the tests' servers follow.

The port is bound first, so a busy one is one plain line and no database
starts for nothing; ``graphmem serve`` claims its data directory even before
that (graphmem.server.discovery), so a second server of one directory is
refused before it takes a port, and holds the claim until the store has
closed. The store then opens and warms (the model loaded and run once, the
statements of a request run once, graphmem.server.warming, the heap settled)
before the address is announced, so ``/readyz`` is true from
its first answer; then the periodic jobs start. Connections queue in
the listen backlog from then until uvicorn accepts them. SIGINT or SIGTERM
drains the requests in flight, for at most ``GRACEFUL_SHUTDOWN_SECONDS``; the
jobs then finish the run in progress before the store closes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from types import FrameType
from typing import NoReturn

import uvicorn
from starlette.types import ASGIApp

from graphmem.api import GraphMem
from graphmem.server.scheduler import Scheduler
from graphmem.server.warming import warm_store
from graphmem.settings import Settings, names
from graphmem.store.supervisor import when_unrecoverable

GRACEFUL_SHUTDOWN_SECONDS = 30
"""How long a stopping server waits for requests in flight: a client that never
finishes must not hold the stop (and the database's clean shutdown) hostage."""

BACKLOG = 2048
"""Connections queued before uvicorn accepts them (uvicorn's own default)."""

KEEP_ALIVE_SECONDS = 75
"""How long an idle connection is kept open. uvicorn's 5 s is also httpx's
(graphmem's client's) idle expiry: a client reusing a connection just as the
server closed it got a ReadError, a few requests in a thousand under 64 clients.
A server that keeps connections longer than its clients do never closes one
under them."""

EXIT_STORE_LOST = 69
"""A server's exit status when the embedded database died and could not be
restarted (sysexits' EX_UNAVAILABLE): a service manager restarts the process."""

START_SECONDS = 120.0
"""How long ``in_thread`` waits for uvicorn to start: its start-up may open an
embedded database and load the model, which take tens of seconds on a busy
machine; the wait ends as soon as it has started."""


COMMAND_SHOWN = 120
"""Characters of a busy port's holder's command line shown in the message."""


class PortUnavailableError(Exception):
    """The port cannot be bound; the message says why, and what to do, in one line."""


def bind(host: str, port: int, *, port_env: str = names.PORT) -> socket.socket:
    """The socket bound to ``host:port``, not yet listening (``port_env``: the
    setting that chooses the port, named in the message of a busy one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelt out: asyncio turns Nagle's algorithm off only on sockets
    # that say TCP, and with it on, a response written in two parts waits for the
    # client's delayed ACK (40 ms on Linux) before its body leaves.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host.strip("[]"), port))
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            reason = _in_use(host, port, port_env)
        elif exc.errno == errno.EACCES:
            reason = f"port {port} needs privileges this process lacks; choose one above 1023"
        else:
            reason = f"cannot listen on {host} port {port}: {exc.strerror or exc}"
        raise PortUnavailableError(reason) from None
    return listener


def _in_use(host: str, port: int, port_env: str) -> str:
    """Why a busy port is refused: which process holds it when this user's is
    (often a ``make serve`` left running), how to stop it, the next port."""
    holder = listener_of(port)
    if holder is None:
        stop = "stop what listens there"
    else:
        stop = f"it is {holder}: stop it (Ctrl-C where it runs, or kill {holder.split()[1]})"
    return (
        f"port {port} is in use on {host}; {stop}, or choose another port: "
        f"set {port_env}={port + 1} or pass --port {port + 1}"
    )


def listener_of(port: int) -> str | None:
    """``pid N (its command line)`` of the process of this user listening on TCP
    ``port``, read from /proc; ``None`` where there is none to read (another
    user's process, another system). Only a busy port's message asks."""
    inodes = _listening_inodes(port)
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            for fd in fd_dir.iterdir():
                if os.readlink(fd) in inodes:
                    pid = fd_dir.parent.name
                    words = (fd_dir.parent / "cmdline").read_bytes().replace(b"\0", b" ").split()
                    command = b" ".join(words).decode(errors="replace")[:COMMAND_SHOWN]
                    return f"pid {pid} ({command})"
    return None


def _listening_inodes(port: int) -> set[str]:
    """``socket:[inode]`` of every socket listening (state 0A) on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    found.add(f"socket:[{fields[9]}]")
    return found


class _Stop:
    """How the process ends when SIGTERM arrives."""

    status = 0


def exit_on_sigterm() -> None:
    """End the process on SIGTERM through the same path as any exit, so the store
    closes in order, with status 0 as on Ctrl-C (``EXIT_STORE_LOST`` when the
    stop was for a lost store). uvicorn re-raises SIGTERM once it has shut down
    gracefully; outside uvicorn (MCP over stdio) it is the stop itself."""
    signal.signal(signal.SIGTERM, _exit)


def _exit(signum: int, frame: FrameType | None) -> NoReturn:
    raise SystemExit(_Stop.status)


def _stop_for_a_lost_store(reason: str) -> None:
    """Shut down as on SIGTERM (requests in flight finish, the store closes), then
    exit with ``EXIT_STORE_LOST``; the supervisor has logged the fatal line."""
    _Stop.status = EXIT_STORE_LOST
    os.kill(os.getpid(), signal.SIGTERM)


@contextlib.contextmanager
def running(
    gm: GraphMem, settings: Settings, *, announce: Callable[[], None] | None = None
) -> Iterator[None]:
    """``gm`` warmed (its model, then its store's statements), then announced
    (``announce``), then its periodic jobs running for the block unless the
    settings turn them off; on the way out the run in progress finishes, before
    the caller closes the store it writes to."""
    gm.warm()
    warm_store(gm)
    if announce is not None:
        announce()
    scheduler = Scheduler(gm) if settings.retention.scheduler else None
    if scheduler is not None:
        scheduler.start()
    try:
        yield
    finally:
        if scheduler is not None:
            scheduler.stop()


def serve(
    settings: Settings,
    listener: socket.socket,
    app: Callable[[GraphMem], ASGIApp],
    *,
    announce: Callable[[int], None],
    advertised: Callable[[int], AbstractContextManager[object]] | None = None,
    log_level: str | None = None,
) -> bool:
    """Serve ``app(gm)`` over the store ``settings`` describe, on the bound
    ``listener``, until SIGINT or SIGTERM; whether uvicorn started.

    ``announce(port)`` says where once the store is warm; ``advertised(port)``
    holds for as long as the server runs (the address file the CLI finds it
    by, in the data directory the caller has claimed). ``log_level``:
    uvicorn's own logging at that level; ``None``: the process has configured
    logging, and graphmem.access replaces uvicorn's access log with lines that
    carry the operation and request id.
    """
    port = listener.getsockname()[1]
    with GraphMem.open(settings) as gm:
        when_unrecoverable(_stop_for_a_lost_store)
        with running(gm, settings, announce=lambda: announce(port)):
            server = _server(app(gm), log_level)
            # Connections wait in the backlog from here until uvicorn accepts
            # them, so the address can be advertised before it runs.
            listener.listen(BACKLOG)
            # uvicorn re-raises Ctrl-C once it has shut down gracefully: a
            # stop asked for, status 0.
            with (
                contextlib.suppress(KeyboardInterrupt),
                advertised(port) if advertised else contextlib.nullcontext(),
            ):
                server.run(sockets=[listener])
    return server.started


@contextlib.contextmanager
def in_thread(app: ASGIApp, host: str = "127.0.0.1") -> Iterator[str]:
    """``app`` served from a thread on a free port of ``host`` for the length of
    the block, which gets its base URL: a server inside a process that keeps its
    main thread (tests). The caller owns the app's store; the block's end stops
    the server as a signal would, draining the requests in flight."""
    with bind(host, 0) as listener:
        server = _server(app, "warning")
        listener.listen(BACKLOG)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + START_SECONDS
            while not server.started and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.01)
            if not server.started:
                raise RuntimeError("uvicorn did not start")
            yield f"http://{host}:{listener.getsockname()[1]}"
        finally:
            server.should_exit = True
            thread.join(timeout=10)


def _server(app: ASGIApp, log_level: str | None) -> uvicorn.Server:
    if log_level is None:
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            backlog=BACKLOG,
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
    else:
        config = uvicorn.Config(
            app,
            log_level=log_level,
            backlog=BACKLOG,
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
    return uvicorn.Server(config)
