"""Commands for the GraphQL API itself: serve it, print its schema."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Annotated

import typer
from rich.text import Text

from graphmem.cli import server_first
from graphmem.cli.common import app, err, reported_errors, settings_for
from graphmem.server.discovery import Claim, DirectoryServedError, store_of
from graphmem.settings import Settings, env_name, names


@app.command()
def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None, typer.Option(help=f"Interface to bind (default: {env_name('host')}).")
    ] = None,
    port: Annotated[int | None, typer.Option(help=f"Port to bind (default: {names.PORT}).")] = None,
    log_level: Annotated[
        str | None,
        typer.Option(
            help=f"Log level (default: {env_name('log_level')}, else info); "
            "'warning' drops the per-request lines.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the GraphQL API (GraphiQL in the browser) until Ctrl-C."""
    # Imported here: the web stack takes ~0.4 s to import, which the other
    # commands would pay for nothing.
    from graphmem.graphql.app import create_app
    from graphmem.server import serving
    from graphmem.server.observability.process import configure_serving

    serving.exit_on_sigterm()
    with reported_errors():
        settings = settings_for(ctx, host=host, port=port)
        configure_serving(log_level=log_level)
        # The data directory, then the port: a second server of the directory
        # or a busy port is a plain line before anything starts.
        with (
            claimed(settings) as claim,
            listen(settings.server.host, settings.server.port) as listener,
        ):
            started = serving.serve(
                settings,
                listener,
                lambda gm: create_app(gm, settings),
                announce=lambda port: _announce(settings, port),
                advertised=lambda port: claim.advertised(settings.server.host, port),
            )
        if not started:
            raise typer.Exit(1)


def _announce(settings: Settings, port: int) -> None:
    """What ``serve`` prints once the store is warm: where, who may call, what store."""
    from graphmem.graphql.app import banner

    for line in banner(settings, port):
        err.print(line, markup=False)
    if settings.server.auth_required:
        err.print("graphmem: API keys required (graphmem keys create)", markup=False)
    else:
        err.print(
            "graphmem: open access, no API key needed: listening on loopback only",
            markup=False,
        )
    if settings.store.backend == "falkordb" and not settings.store.falkordb_url:
        err.print(
            f"graphmem: embedded FalkorDB in {settings.store.data_dir}, "
            f"durability {settings.store.durability}",
            markup=False,
        )
    else:
        err.print(f"graphmem: {store_of(settings)}", markup=False)


@contextlib.contextmanager
def claimed(settings: Settings) -> Iterator[Claim]:
    """The data directory held by this server for the block, or one plain red line
    naming the server that holds it and how to run beside it."""
    with contextlib.ExitStack() as held:
        try:
            claim = held.enter_context(server_first.claimed(settings))
        except DirectoryServedError as exc:
            err.print(Text(f"error: {refusal(exc, settings)}", style="bold red"))
            raise typer.Exit(1) from None
        except OSError as exc:
            from graphmem.store.embedded import unusable_directory  # the store's own words

            raise unusable_directory(settings.store.data_dir, exc) from None
        if claim.beside is not None:
            err.print(
                f"graphmem: {settings.store.data_dir} is served by graphmem serve "
                f"{claim.beside.named()} on this store too: this server runs beside it, and "
                "the commands of the data directory keep going to that one",
                markup=False,
            )
        yield claim


def refusal(exc: DirectoryServedError, settings: Settings) -> str:
    """Why a server of another store than the data directory's does not start,
    and what to do: the first server holds the usual port too, so the way to run
    beside it names the next one."""
    return (
        f"{exc}, and this one would serve {store_of(settings)}: two stores behind one "
        "data directory would split the commands between them. Stop that one, or run "
        "this one beside it with a data directory and a port of its own: graphmem "
        f"--data-dir DIR serve --port {settings.server.port + 1} (or {names.DATA_DIR}=DIR), "
        f"and the same {names.DATA_DIR} for the commands that use it"
    )


def listen(host: str, port: int, *, port_env: str = names.PORT) -> socket.socket:
    """The bound socket, or one plain red line saying why there is none
    (``port_env``: the setting that chooses the port)."""
    from graphmem.server import serving

    try:
        return serving.bind(host, port, port_env=port_env)
    except serving.PortUnavailableError as exc:
        err.print(Text(f"error: {exc}", style="bold red"))
        raise typer.Exit(1) from None


@app.command()
def schema() -> None:
    """Print the GraphQL schema (SDL)."""
    from graphmem.graphql.schema import export_sdl

    typer.echo(export_sdl().rstrip("\n"))
