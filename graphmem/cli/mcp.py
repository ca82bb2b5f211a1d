"""``graphmem mcp``: the memory store as an MCP server for agent clients."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
from enum import StrEnum
from types import FrameType
from typing import Annotated, NoReturn

import typer

from graphmem.api import GraphMem
from graphmem.auth import OPEN
from graphmem.cli.common import app, err, reported_errors, settings_for
from graphmem.cli.memories import GRACEFUL_SHUTDOWN_SECONDS, listen
from graphmem.config import Settings
from graphmem.scheduler import Scheduler

DEFAULT_PORT = 8765


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@app.command()
def mcp(
    ctx: typer.Context,
    transport: Annotated[
        Transport,
        typer.Option(
            help="stdio: one client that spawned this process; http: streamable HTTP.",
            case_sensitive=False,
        ),
    ] = Transport.STDIO,
    host: Annotated[
        str | None, typer.Option(help="HTTP: interface to bind (default: GRAPHMEM_HOST).")
    ] = None,
    port: Annotated[
        int, typer.Option(envvar="GRAPHMEM_MCP_PORT", help="HTTP: port to bind.")
    ] = DEFAULT_PORT,
) -> None:
    """Serve the agent tools over MCP until the client leaves (stdio) or Ctrl-C (http).

    Over stdio the tools act with the key in GRAPHMEM_API_KEY, or unrestricted
    when it is unset. Over HTTP each request brings its own key, required unless
    the server listens on loopback only (GRAPHMEM_AUTH=required: always).
    """
    # Imported here: the MCP SDK takes seconds to import, which the other
    # commands would pay for nothing.
    import anyio

    from graphmem.mcp.server import create_server

    # A client or service manager stops the server with SIGTERM: leave through
    # the same path as end of input, so the store closes in order.
    signal.signal(signal.SIGTERM, _exit_quietly)
    with reported_errors():
        settings = settings_for(ctx, host=host)
        # Bound before the store opens: a busy port is one plain line, and the
        # database does not start for nothing.
        listener = (
            listen(settings.host, port, port_env="GRAPHMEM_MCP_PORT")
            if transport is Transport.HTTP
            else None
        )
        with contextlib.ExitStack() as stack:
            if listener is not None:
                stack.enter_context(listener)
            gm = stack.enter_context(GraphMem.open(settings))
            key = os.environ.get("GRAPHMEM_API_KEY")
            # Checked before serving: a wrong key is one red line, not a failing call.
            principal = gm.keys.authenticate(key) if key and transport is Transport.STDIO else OPEN
            gm.warm()
            scheduler = Scheduler(gm) if settings.scheduler else None
            if scheduler:
                scheduler.start()
            try:
                if listener is not None:
                    _serve_http(gm, settings, listener)
                else:
                    anyio.run(create_server(gm, principal=principal).run_stdio_async)
            finally:
                if scheduler:
                    scheduler.stop()


def _serve_http(gm: GraphMem, settings: Settings, listener: socket.socket) -> None:
    import uvicorn

    from graphmem.mcp.http import MCP_PATH, create_http_app

    access = (
        "API keys required"
        if settings.auth_required
        else "open access, no API key needed: listening on loopback only"
    )
    port = listener.getsockname()[1]
    err.print(f"graphmem: MCP at http://{settings.host}:{port}{MCP_PATH} ({access})", markup=False)
    server = uvicorn.Server(
        uvicorn.Config(
            create_http_app(gm, settings),
            log_level="warning",
            # Open event streams must not hold a stop (and the database's clean
            # shutdown) hostage.
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
    )
    server.run(sockets=[listener])


def _exit_quietly(signum: int, frame: FrameType | None) -> NoReturn:
    raise SystemExit(0)
