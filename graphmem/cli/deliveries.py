"""``graphmem deliveries``: what knowledgeContext handed out, from the record."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from graphmem.cli.common import ProjectOption, app, keyed, out
from graphmem.cli.terminal import shown
from graphmem.domain.auth import Role
from graphmem.domain.clock import to_datetime
from graphmem.domain.deliveries import Delivery, Given
from graphmem.domain.wording import plural

Filter = Annotated[str | None, typer.Option(show_default=False)]


@app.command()
def deliveries(
    ctx: typer.Context,
    session: Filter = None,
    agent: Filter = None,
    memory: Annotated[
        str | None, typer.Option(help="Only deliveries that gave this memory.", show_default=False)
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="ISO 8601; inclusive.", show_default=False)
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="ISO 8601; exclusive.", show_default=False)
    ] = None,
    changed: Annotated[
        bool,
        typer.Option(
            "--changed",
            help="Only deliveries that gave memories since superseded, archived, marked "
            "for review or forgotten.",
        ),
    ] = False,
    first: Annotated[int, typer.Option(help="How many deliveries, newest first.")] = 20,
    project: ProjectOption = None,
) -> None:
    """What knowledgeContext handed out, newest first: to a session or agent between
    two times, the deliveries that gave a memory, or (--changed) those whose memories
    changed since."""
    flt = {
        "session_id": session,
        "agent_id": agent,
        "memory_id": memory,
        "since": since,
        "until": until,
        "changed": changed,
    }
    with keyed(ctx, project, Role.READ) as (gm, project):
        page = gm.deliveries(
            {k: v for k, v in flt.items() if v is not None}, first=first, project_id=project
        )
    out.print(_table(page.items), crop=False)


def _table(items: list[Delivery]) -> Table:
    table = Table(title=plural(len(items), "delivery", "deliveries"))
    for column in ("at", "session", "agent", "memories given (rank: id state)"):
        table.add_column(column, no_wrap=column != "memories given (rank: id state)")
    for delivery in items:
        at = to_datetime(delivery.at)
        given = ", ".join(
            f"{g.rank}: {g.memory_id or 'another memory'}"
            + ("" if g.state is Given.CURRENT else f" {g.state.value}")
            for g in delivery.memories
        )
        table.add_row(
            at.isoformat(timespec="seconds") if at else "-",
            shown(delivery.session_id or "-"),
            shown(delivery.agent_id or "-"),
            shown(given or "-"),
        )
    return table
