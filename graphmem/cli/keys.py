"""``graphmem keys``: API keys for servers that listen beyond loopback."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from graphmem.cli.common import app, err, opened, out
from graphmem.cli.terminal import shown
from graphmem.domain.auth import Role
from graphmem.domain.wording import plural
from graphmem.services.keys import format_time

keys = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)
app.add_typer(keys, name="keys")


@keys.command("create")
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="What the key is for, e.g. 'ci-agent'.")],
    project: Annotated[
        list[str],
        typer.Option("--project", "-p", help="A project the key may use; repeat for more."),
    ],
    role: Annotated[
        Role, typer.Option(help="read, write (includes read) or admin.", case_sensitive=False)
    ] = Role.READ,
    agent: Annotated[
        str | None,
        typer.Option(
            help="Bind the key to this agent: it sees shared memories and the agent's own "
            "private ones, and writes as that agent."
        ),
    ] = None,
) -> None:
    """Create a key and print it once: only its hash is stored."""
    with opened(ctx) as gm:
        key, token = gm.keys.create(name, project, role, agent_id=agent)
    bound = f" as agent {key.agent_id}" if key.agent_id else ""
    err.print(
        f"graphmem: key {key.id} ({key.role.value}{bound}) for {', '.join(key.projects)}; "
        "store it now, it cannot be shown again",
        markup=False,
    )
    typer.echo(token)


@keys.command("list")
def list_keys(ctx: typer.Context) -> None:
    """Every key, live and revoked (never the key itself)."""
    with opened(ctx) as gm:
        found = gm.keys.list()
    table = Table(title=plural(len(found), "key"), box=box.SIMPLE_HEAD)
    columns = (
        "id",
        "name",
        "prefix",
        "role",
        "agent",
        "projects",
        "created",
        "last used",
        "revoked",
    )
    for column in columns:
        table.add_column(column, no_wrap=column in ("id", "prefix"))
    for key in found:
        table.add_row(
            key.id,
            shown(key.name),
            key.prefix + "…",
            key.role.value,
            key.agent_id or "",
            ", ".join(key.projects),
            format_time(key.created_at),
            format_time(key.last_used_at),
            format_time(key.revoked_at),
        )
    out.print(table)


@keys.command("revoke")
def revoke(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(help="The key's id.")]
) -> None:
    """Revoke a key; requests that present it fail from then on."""
    with opened(ctx) as gm:
        key = gm.keys.revoke(key_id)
    err.print(f"graphmem: key {key.id} revoked", markup=False)
