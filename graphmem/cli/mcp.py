"""``graphmem mcp``: the memory store as an MCP server for agent clients."""

from __future__ import annotations

import os
import socket
from enum import StrEnum
from typing import Annotated

import typer

from graphmem.api import GraphMem
from graphmem.cli.common import app, err, reported_errors, settings_for
from graphmem.cli.serving import listen
from graphmem.domain.auth import OPEN
from graphmem.settings import Settings, env_name, names

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
        str | None, typer.Option(help=f"HTTP: interface to bind (default: {env_name('host')}).")
    ] = None,
    port: Annotated[
        int, typer.Option(envvar=names.MCP_PORT, help="HTTP: port to bind.")
    ] = DEFAULT_PORT,
) -> None:
    """Serve the agent tools over MCP until the client leaves (stdio) or Ctrl-C (http).

    Over stdio the tools act with the key in GRAPHMEM_API_KEY, or unrestricted
    when it is unset. Over HTTP each request brings its own key, required unless
    the server listens on loopback only (GRAPHMEM_AUTH=required: always).
    """
    # Imported here: the web stack and the MCP SDK take seconds to import, which
    # the other commands would pay for nothing.
    from graphmem.server import serving

    serving.exit_on_sigterm()
    with reported_errors():
        settings = settings_for(ctx, host=host)
        if transport is Transport.HTTP:
            # Bound before the store opens: a busy port is one plain line, and the
            # database does not start for nothing.
            with listen(settings.server.host, port, port_env=names.MCP_PORT) as listener:
                _serve_http(settings, listener)
        else:
            _serve_stdio(settings)


def _serve_stdio(settings: Settings) -> None:
    """The tools for the one client on stdin and stdout, until it leaves."""
    import anyio

    from graphmem.mcp.server import create_server
    from graphmem.server import serving

    with GraphMem.open(settings) as gm:
        key = os.environ.get(names.API_KEY)
        # Checked before serving: a wrong key is one red line, not a failing call.
        principal = gm.keys.authenticate(key) if key else OPEN
        with serving.running(gm, settings):
            anyio.run(create_server(gm, principal=principal).run_stdio_async)


def _serve_http(settings: Settings, listener: socket.socket) -> None:
    from graphmem.mcp.http import MCP_PATH, create_http_app
    from graphmem.server import serving

    def announce(port: int) -> None:
        access = (
            "API keys required"
            if settings.server.auth_required
            else "open access, no API key needed: listening on loopback only"
        )
        err.print(
            f"graphmem: MCP at http://{settings.server.host}:{port}{MCP_PATH} ({access})",
            markup=False,
        )

    started = serving.serve(
        settings,
        listener,
        lambda gm: create_http_app(gm, settings),
        announce=announce,
        log_level="warning",
    )
    if not started:
        raise typer.Exit(1)
