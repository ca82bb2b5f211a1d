"""Commands that read or write single memories."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from graphmem.cli import server_first
from graphmem.cli.common import (
    TYPES_HELP,
    AsOfOption,
    ProjectOption,
    app,
    opened,
    out,
    read_served_or_local,
    reported_errors,
    require_project,
    served_or_local,
    settings_for,
    time_arg,
)
from graphmem.cli.terminal import escape_controls, shown
from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import NotFoundError
from graphmem.domain.models import TIME_FIELDS, Memory, MemoryInput, Page, WriteResult
from graphmem.domain.wording import plural
from graphmem.settings import env_name

if TYPE_CHECKING:
    from graphmem.api import GraphMem
    from graphmem.cli.server_first import ServedReader
    from graphmem.domain.relations import Relation
    from graphmem.domain.scoring import ImportanceBreakdown


@app.command()
def remember(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="What to remember.")],
    memory_type: Annotated[
        str | None, typer.Option("--type", help=f"One of: {TYPES_HELP}.", show_default=False)
    ] = None,
    confidence: Annotated[
        float | None, typer.Option(help="0 to 1 (default 0.7).", show_default=False)
    ] = None,
    source: Annotated[
        str, typer.Option(help="manual, agent, auto_extracted or import.")
    ] = "manual",
    tags: Annotated[
        list[str] | None, typer.Option("--tag", help="A tag; repeat for more.", show_default=False)
    ] = None,
    session: Annotated[str | None, typer.Option(help="Session id.", show_default=False)] = None,
    occurred_at: Annotated[
        str | None,
        typer.Option(
            help="When it happened (ISO 8601, or epoch seconds); now when omitted.",
            show_default=False,
        ),
    ] = None,
    valid_from: Annotated[
        str | None,
        typer.Option(
            help="When what it records began to hold (ISO 8601, or epoch seconds); "
            "--occurred-at when omitted.",
            show_default=False,
        ),
    ] = None,
    valid_to: Annotated[
        str | None,
        typer.Option(
            help="When it stopped holding (ISO 8601, or epoch seconds); open when omitted.",
            show_default=False,
        ),
    ] = None,
    agent: Annotated[
        str | None, typer.Option(help="The agent writing it.", show_default=False)
    ] = None,
    visibility: Annotated[
        str | None,
        typer.Option(
            help="private (only its agent sees it) or shared (every agent of the project); "
            f"default: {env_name('default_visibility')}.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOption = None,
) -> None:
    """Store one memory and show how it was filed."""
    item: dict[str, Any] = {"content": content, "source": source, "tags": tags or []}
    optional = {
        "memory_type": memory_type,
        "confidence": confidence,
        "session_id": session,
        "occurred_at": time_arg(occurred_at),
        "valid_from": time_arg(valid_from),
        "valid_to": time_arg(valid_to),
        "agent_id": agent,
        "visibility": visibility,
    }
    item.update({key: value for key, value in optional.items() if value is not None})
    with reported_errors():
        memory_input = parse(MemoryInput, item)
    memory, outcome = served_or_local(
        ctx,
        lambda settings: server_first.remember(settings, memory_input, project=project),
        lambda gm: gm.remember_detailed(memory_input, project_id=project),
    )
    title = _TITLES[outcome.result]
    table = Table(title=title, show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", no_wrap=True)
    for field, value in (
        ("id", memory.id),
        ("project", memory.project_id),
        ("tier", memory.tier.value),
        ("status", memory.status.value),
        ("importance", f"{memory.importance:.3f}"),
        ("type", memory.memory_type.value if memory.memory_type else "-"),
        ("session", memory.session_id),
        ("agent", f"{memory.agent_id} ({memory.visibility.value})" if memory.agent_id else "-"),
        ("occurred", as_datetime(memory.occurred).isoformat()),
        ("valid from", as_datetime(memory.valid_since).isoformat()),
        (
            "valid to",
            as_datetime(memory.valid_to).isoformat() if memory.valid_to else "-",
        ),
        ("occurrences", str(memory.occurrence_count)),
    ):
        table.add_row(field, value)
    if outcome.related_id:
        table.add_row(_RELATED[outcome.result], outcome.related_id)
    if outcome.reason:
        table.add_row("why", shown(outcome.reason))
    out.print(table)


_TITLES = {
    WriteResult.CREATED: "Remembered",
    WriteResult.MERGED_EXACT: "Already known (exact match)",
    WriteResult.MERGED_NEAR: "Already known (near match: same statement)",
    WriteResult.SUPERSEDED: "Remembered: supersedes an older value",
    WriteResult.FLAGGED_CONFLICT: "Remembered as a candidate: may contradict a memory",
}
"""The title of ``remember``'s table: which of the write's outcomes happened."""
_RELATED = {WriteResult.SUPERSEDED: "supersedes", WriteResult.FLAGGED_CONFLICT: "conflicts with"}


@app.command(name="list")
def list_memories(
    ctx: typer.Context,
    tier: Annotated[str | None, typer.Option(show_default=False)] = None,
    status: Annotated[str | None, typer.Option(show_default=False)] = None,
    memory_type: Annotated[
        str | None, typer.Option("--type", help=f"One of: {TYPES_HELP}.", show_default=False)
    ] = None,
    session: Annotated[str | None, typer.Option(show_default=False)] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option("--tag", help="Only memories with this tag; repeat to require several."),
    ] = None,
    exclude_candidates: Annotated[
        bool, typer.Option("--exclude-candidates", help="Hide candidates awaiting review.")
    ] = False,
    first: Annotated[int, typer.Option(help="Page size.")] = 20,
    after: Annotated[
        str | None, typer.Option(help="Cursor printed by the previous page.", show_default=False)
    ] = None,
    as_of: AsOfOption = None,
    project: ProjectOption = None,
) -> None:
    """List memories, newest first, one page at a time (with --as-of, those that held then)."""
    wanted = {"tier": tier, "status": status, "memory_type": memory_type, "session_id": session}
    flt: dict[str, Any] = {key: value for key, value in wanted.items() if value is not None}
    flt["tags"] = tags or []
    flt["include_candidates"] = not exclude_candidates

    def listed(gm: GraphMem | ServedReader, project: str | None) -> Page:
        page = gm.list(flt, first=first, after=after, project_id=project, as_of=time_arg(as_of))
        if not page.items:
            require_project(gm, server_first.project_named(project))
        return page

    page = read_served_or_local(ctx, project, Role.READ, listed)
    if not page.items:
        out.print("no memories match")
        return
    # As of a past time every memory listed held then; now, some may have ended.
    out.print(_listing(page.items, now=time.time() if as_of is None else None), crop=False)
    if page.has_next:
        out.print(Text(f"next page: --after {page.end_cursor}"), soft_wrap=True)
    else:
        out.print("no more pages")


@app.command()
def show(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")],
    as_of: AsOfOption = None,
    project: ProjectOption = None,
) -> None:
    """Show one memory, why it scores what it scores, and what it is related to
    (with --as-of, as it stood then and the relations it had then)."""

    def looked_up(gm: GraphMem | ServedReader, project: str | None) -> _Shown:
        return _looked_up(gm, memory_id, project, as_of)

    memory, relations, breakdown = read_served_or_local(ctx, project, Role.READ, looked_up)

    fields = Table(title=f"Memory {memory.id}", show_header=False)
    fields.add_column("field", style="bold", no_wrap=True)
    fields.add_column("value")
    for name, value in _fields(memory):
        fields.add_row(name, shown(value))
    out.print(fields)

    scores = Table(
        title=f"Importance now ({breakdown.preset} preset)",
        caption="frequency counts accesses only (record_access), not retrievals or repeats",
    )
    scores.add_column("component")
    for column in ("value", "weight", "contribution"):
        scores.add_column(column, justify="right")
    for c in breakdown.components:
        scores.add_row(c.name, f"{c.value:.3f}", f"{c.weight:.3f}", f"{c.contribution:.3f}")
    scores.add_row("total", "", "", f"{breakdown.total:.3f}", style="bold")
    out.print(scores)

    if not relations:
        out.print("no relations")
        return
    edges = Table(title="Relations")
    for column in ("type", "from", "to", "weight", "rationale"):
        edges.add_column(column, no_wrap=column in ("from", "to"))
    for r in relations:
        edges.add_row(r.type.value, r.from_id, r.to_id, f"{r.weight:.2f}", shown(r.rationale or ""))
    out.print(edges)


_Shown = tuple[Memory, "list[Relation]", "ImportanceBreakdown"]
"""What ``show`` prints: the memory, its relations and its importance now."""


def _looked_up(
    gm: GraphMem | ServedReader, memory_id: str, project: str | None, as_of: str | None
) -> _Shown:
    """The memory ``show`` prints, with its relations (those it had at ``as_of``)."""
    try:
        if as_of is None:
            memory = gm.get(memory_id, project_id=project)
            (relations,) = gm.relations([memory.id], project_id=project)
        else:
            memory = gm.get(memory_id, project_id=project, as_of=time_arg(as_of))
            hood = gm.neighborhood(memory_id, project_id=project, as_of=time_arg(as_of))
            relations = [r for r in hood.edges if memory_id in (r.from_id, r.to_id)]
    except NotFoundError:
        require_project(gm, server_first.project_named(project))
        if as_of is not None:
            _written_after(gm, memory_id, project, as_of)
        raise
    return memory, relations, gm.importance_breakdown(memory)


@app.command()
def pin(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")],
    project: ProjectOption = None,
) -> None:
    """Pin a memory: a person's confirmation (a candidate becomes active), and a
    pinned memory is never archived."""
    memory = served_or_local(
        ctx,
        lambda settings: server_first.pin(settings, memory_id, project=project),
        lambda gm: gm.pin(memory_id, project_id=project),
    )
    out.print(f"pinned {_state(memory)}")


@app.command()
def unpin(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")],
    project: ProjectOption = None,
) -> None:
    """Unpin a memory; once stale it may be archived again."""
    memory = served_or_local(
        ctx,
        lambda settings: server_first.unpin(settings, memory_id, project=project),
        lambda gm: gm.unpin(memory_id, project_id=project),
    )
    out.print(f"unpinned {_state(memory)}")


@app.command(context_settings={"ignore_unknown_options": True})
def feedback(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")],
    value: Annotated[
        int, typer.Argument(metavar="VALUE", help="1 useful, 0 neutral, -1 wrong or unhelpful.")
    ],
    project: ProjectOption = None,
) -> None:
    """Rate a memory: 1 useful, 0 neutral, -1 wrong or unhelpful; it is rescored."""
    memory = served_or_local(
        ctx,
        lambda settings: server_first.feedback(settings, memory_id, value, project=project),
        lambda gm: gm.feedback(memory_id, value, project_id=project),
    )
    out.print(f"feedback {value:+d} on {_state(memory)}, feedback sum {memory.feedback:g}")


@app.command()
def forget(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id.")],
    project: ProjectOption = None,
) -> None:
    """Delete a memory and its relations for good (stale memories are archived
    instead, and can be restored)."""
    with reported_errors():
        forgotten = server_first.forget(settings_for(ctx), memory_id, project=project)
    if not forgotten:
        with opened(ctx) as gm:
            gm.forget(memory_id, project_id=project)
    out.print(f"forgot {memory_id} and its relations")


def _state(memory: Memory) -> str:
    """A memory after a change: what the change moves (tier, status, importance)."""
    return (
        f"{memory.id} in project {memory.project_id}: {memory.tier.value}, "
        f"{memory.status.value}, importance {memory.importance:.3f}"
    )


LIST_COLUMNS = ("id", "tier", "status", "type", "importance", "content")
MIN_PREVIEW = 20
MAX_PREVIEW = 60


def _listing(memories: list[Memory], *, now: float | None) -> Table:
    """A table that never cuts a field short.

    Ids must survive whole to be pasted into ``show``, so only the content
    preview gives way to a narrow terminal; below its minimum the lines wrap.
    A memory whose validity ended by ``now`` is marked expired beside its status.
    """
    rows = [
        [
            m.id,
            m.tier.value,
            _status(m, now),
            m.memory_type.value if m.memory_type else "-",
            f"{m.importance:.3f}",
            escape_controls(" ".join(m.content.split())),
        ]
        for m in memories
    ]
    widths = [
        max([len(name), *(len(row[i]) for row in rows)]) for i, name in enumerate(LIST_COLUMNS)
    ]
    padding = 3 * len(widths) + 1  # a space either side of every cell, one rule between
    room = out.width - sum(widths[:-1]) - padding
    preview = max(MIN_PREVIEW, min(MAX_PREVIEW, room))
    for row in rows:
        row[-1] = row[-1] if len(row[-1]) <= preview else row[-1][: preview - 1] + "…"
    widths[-1] = min(widths[-1], preview)
    needed = sum(widths) + padding
    table = Table(
        title=plural(len(rows), "memory", "memories"),
        box=box.SIMPLE_HEAD,
        width=needed if needed > out.width else None,
    )
    for name, width in zip(LIST_COLUMNS, widths, strict=True):
        justify: Literal["right", "left"] = "right" if name == "importance" else "left"
        table.add_column(name, no_wrap=True, min_width=width, justify=justify)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def _status(memory: Memory, now: float | None) -> str:
    """The status, and ``expired`` when what the memory records stopped holding by ``now``."""
    expired = now is not None and memory.valid_to is not None and memory.valid_to <= now
    return f"{memory.status.value}, expired" if expired else memory.status.value


def _written_after(
    gm: GraphMem | ServedReader, memory_id: str, project: str | None, as_of: str
) -> None:
    """Raise ``NotFoundError`` saying when the memory was written, if it exists
    now: then it is missing at ``as_of`` only because it was written later."""
    (now,) = gm.get_many([memory_id], project_id=project)
    if now is None:
        return
    written = as_datetime(now.created_at).isoformat()
    raise NotFoundError(
        f"memory: {memory_id} was written at {written}, after {as_of} "
        "(--as-of): it did not exist yet",
        field="as_of",
    )


def _fields(memory: Memory) -> Iterator[tuple[str, str]]:
    """Every stored field as text; times as ISO-8601 UTC, absent values as '-'."""
    for name, value in memory.model_dump(mode="json").items():
        if value is None or value == []:
            text = "-"
        elif name in TIME_FIELDS:
            text = as_datetime(value).isoformat(timespec="milliseconds")
        elif isinstance(value, list):
            text = ", ".join(str(v) for v in value)
        elif isinstance(value, float):
            text = f"{value:.3f}"
        else:
            text = str(value)
        yield name, text
