"""``graphmem share``, ``unshare``, ``copy`` and ``sharing-events``: who of a
project's agents sees a memory, and copies of memories across projects."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from graphmem.cli.common import AgentOption, ProjectOption, app, opened, out
from graphmem.domain.models import Memory
from graphmem.services.keys import format_time

MemoryIdArgument = Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")]


@app.command()
def share(
    ctx: typer.Context,
    memory_id: MemoryIdArgument,
    agent: AgentOption = None,
    project: ProjectOption = None,
) -> None:
    """Let every agent of the project see a memory (logged).

    Only the agent that wrote it may, or a caller acting as no agent.
    """
    with opened(ctx) as gm:
        memory = gm.as_agent(agent).share(memory_id, project_id=project)
    _said(memory)


@app.command()
def unshare(
    ctx: typer.Context,
    memory_id: MemoryIdArgument,
    agent: AgentOption = None,
    project: ProjectOption = None,
) -> None:
    """Make a memory private to the agent that wrote it (logged)."""
    with opened(ctx) as gm:
        memory = gm.as_agent(agent).unshare(memory_id, project_id=project)
    _said(memory)


@app.command()
def copy(
    ctx: typer.Context,
    memory_id: MemoryIdArgument,
    to_project: Annotated[str, typer.Option("--to", help="The project to copy it into.")],
    agent: AgentOption = None,
    project: ProjectOption = None,
) -> None:
    """Copy a memory into another project; the copy names its source, which stays as it is."""
    with opened(ctx) as gm:
        memory = gm.as_agent(agent).copy_memory(memory_id, to_project, project_id=project)
    out.print(
        f"copied {memory.copied_from} ({memory.copied_from_project}) to {memory.id} "
        f"({memory.project_id}), {memory.visibility.value}"
    )


@app.command("sharing-events")
def sharing_events(
    ctx: typer.Context,
    memory_id: Annotated[
        str | None, typer.Option("--memory", help="Only this memory's events.")
    ] = None,
    limit: Annotated[int, typer.Option(help="How many events, newest first.")] = 50,
    agent: AgentOption = None,
    project: ProjectOption = None,
) -> None:
    """Who shared, unshared or copied which memory, newest first."""
    with opened(ctx) as gm:
        events = gm.as_agent(agent).sharing_events(
            memory_id=memory_id, limit=limit, project_id=project
        )
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("at", "memory", "kind", "by", "change"):
        table.add_column(column, no_wrap=column in ("at", "memory"))
    for event in events:
        change = (
            f"to {event.to_project_id} as {event.copy_id}"
            if event.kind == "copied"
            else f"{_value(event.from_visibility)} -> {_value(event.to_visibility)}"
        )
        table.add_row(format_time(event.at), event.memory_id, event.kind, event.by, change)
    out.print(table)


def _said(memory: Memory) -> None:
    owner = f" (agent {memory.agent_id})" if memory.agent_id else ""
    out.print(f"{memory.id}{owner} is {memory.visibility.value}")


def _value(visibility: object) -> str:
    return getattr(visibility, "value", "-")
