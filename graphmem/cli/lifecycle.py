"""Commands that move memories through their lifecycle: promotion, archival,
review of candidates, and schema migration."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import track
from rich.table import Table

from graphmem.cli.common import (
    TYPES_HELP,
    ProjectOption,
    app,
    err,
    keyed,
    opened,
    out,
    reported_errors,
)
from graphmem.cli.terminal import shown
from graphmem.domain.auth import Role
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.models import Memory
from graphmem.domain.review import ReviewItem
from graphmem.domain.undo import Curation, UndoResult
from graphmem.domain.wording import plural
from graphmem.services.archival import ArchiveResult
from graphmem.services.promotion import RunResult

if TYPE_CHECKING:
    from graphmem.api import GraphMem


@app.command()
def promote(
    ctx: typer.Context,
    sessions: Annotated[list[str], typer.Argument(metavar="SESSION", help="Session ids.")],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would move, with scores; write nothing.")
    ] = False,
    project: ProjectOption = None,
) -> None:
    """Run promotion for one or more sessions now."""
    results: list[RunResult] = []
    with opened(ctx) as gm:
        steps = track(sessions, description="promoting", console=err, transient=True)
        for session_id in steps if len(sessions) > 1 else sessions:
            results.append(gm.run_promotion(session_id, dry_run=dry_run, project_id=project))
    for result in results:
        out.print(_candidates(result), crop=False)
    summary = Table(title="Promotion dry run" if dry_run else "Promotion")
    for column in ("session", "candidates", "promoted", "failed", "remaining", "threshold", "ms"):
        summary.add_column(column, justify="left" if column == "session" else "right")
    for r in results:
        summary.add_row(
            r.session_id,
            str(len(r.candidates)),
            "-" if dry_run else str(r.count),
            str(len(r.failures)),
            str(r.remaining),
            f"{r.threshold:.2f}",
            f"{r.duration_ms:.0f}",
        )
    out.print(summary)
    for r in results:
        for failure in r.failures:
            err.print(shown(f"not promoted {failure.memory_id}: {failure.reason}", style="yellow"))


def _candidates(result: RunResult) -> Table:
    table = Table(title=f"{result.session_id}: {len(result.candidates)} to promote")
    for column in ("id", "from", "to", "score", "breakdown", "rules", "content"):
        table.add_column(column, no_wrap=column in ("id", "breakdown"))
    for c in result.candidates:
        parts = " ".join(f"{x.name}={x.contribution:.2f}" for x in c.breakdown.components)
        table.add_row(
            c.memory.id,
            c.memory.tier.value,
            c.to_tier.value,
            f"{c.score:.3f}",
            parts,
            shown("; ".join(f"{n.rule}: {n.detail}" for n in c.breakdown.rules)),
            shown(" ".join(c.memory.content.split())[:60]),
        )
    return table


@app.command()
def archive(
    ctx: typer.Context,
    memory_id: Annotated[
        str | None,
        typer.Argument(metavar="[ID]", help="Archive this memory by hand (needs --reason)."),
    ] = None,
    reason: Annotated[str | None, typer.Option(help="Why; required with ID.")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be archived; write nothing.")
    ] = False,
    project: ProjectOption = None,
) -> None:
    """Archive stale, low-importance memories, or one memory by id (they stay
    restorable); what rests on an archived memory is marked for review."""
    if memory_id is not None:
        with opened(ctx) as gm:
            memory = gm.archive(memory_id, reason or "", project_id=project)
        out.print(f"archived {memory.id} (graphmem restore {memory.id} brings it back)")
        return
    with opened(ctx) as gm, err.status("finding stale memories..."):
        result = gm.archive_stale(dry_run=dry_run, project_id=project)
    out.print(_archived(result), crop=False)


def _archived(result: ArchiveResult) -> Table:
    verb = "would archive" if result.dry_run else "archived"
    count = len(result.items) if result.dry_run else len(result.archived)
    table = Table(title=f"{verb} {plural(count, 'memory', 'memories')}")
    for column in ("id", "tier", "importance", "reason"):
        table.add_column(column, no_wrap=column == "id")
    done = set(result.archived)
    for item in result.items:
        if result.dry_run or item.memory_id in done:
            table.add_row(item.memory_id, item.tier.value, f"{item.score:.3f}", shown(item.reason))
    return table


@app.command()
def restore(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID")],
    project: ProjectOption = None,
) -> None:
    """Bring an archived memory back to the tier it came from."""
    with opened(ctx) as gm:
        memory = gm.restore(memory_id, project_id=project)
    out.print(f"restored {memory.id} to {memory.tier.value}")


CURATIONS_HELP = ", ".join(c.value for c in Curation)


@app.command()
def undo(
    ctx: typer.Context,
    curation: Annotated[
        str, typer.Argument(metavar="CURATION", help=f"What to take back: {CURATIONS_HELP}.")
    ],
    memory_id: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="The memory it changed: merged into (or merged away), superseded, "
            "consolidated into, archived, rejected or marked.",
        ),
    ],
    reason: Annotated[str, typer.Option(help="Why it is undone.")],
    by: Annotated[str | None, typer.Option(help="Who undoes it (default: the login name).")] = None,
    project: ProjectOption = None,
) -> None:
    """Take back a curation, logged with who and why; the review marks it left go
    with it. Refused, saying what blocks it, where a later change rests on it."""
    with opened(ctx) as gm:
        done = gm.undo(
            curation, memory_id, reason=reason, by=by or f"cli:{getpass.getuser()}",
            project_id=project,
        )  # fmt: skip
    out.print(_undone(done))


def _undone(done: UndoResult) -> str:
    said = [f"undid the {done.curation.value} of {done.memory_id}"]
    for label, ids in (
        ("restored", done.restored),
        ("wrote", done.created),
        ("archived", done.archived),
    ):
        if ids:
            said.append(f"{label} {', '.join(ids)}")
    return "; ".join(said)


@app.command()
def review(
    ctx: typer.Context,
    approve: Annotated[
        list[str] | None, typer.Option("--approve", metavar="ID", help="Approve this candidate.")
    ] = None,
    reject: Annotated[
        list[str] | None, typer.Option("--reject", metavar="ID", help="Reject this candidate.")
    ] = None,
    confirm: Annotated[
        list[str] | None,
        typer.Option(
            "--confirm",
            metavar="ID",
            help="A memory marked for review still holds: clear its mark.",
        ),
    ] = None,
    marked: Annotated[
        bool,
        typer.Option(
            "--marked",
            help="List the memories marked for review (a memory they rest on changed).",
        ),
    ] = False,
    reason: Annotated[str | None, typer.Option(help="Why; required to reject.")] = None,
    all_matching: Annotated[
        str | None,
        typer.Option(
            "--all", metavar="ACTION", help="approve or reject every candidate the filters select."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --all: list what would change.")
    ] = False,
    list_only: Annotated[bool, typer.Option("--list", help="Only list the queue.")] = False,
    order: Annotated[str, typer.Option(help="oldest or evidence.")] = "oldest",
    session: Annotated[str | None, typer.Option(show_default=False)] = None,
    memory_type: Annotated[
        str | None, typer.Option("--type", help=f"One of: {TYPES_HELP}.", show_default=False)
    ] = None,
    tags: Annotated[list[str] | None, typer.Option("--tag", show_default=False)] = None,
    min_occurrences: Annotated[int, typer.Option(help="At least this many occurrences.")] = 1,
    first: Annotated[int, typer.Option(help="How many candidates to go through.")] = 20,
    project: ProjectOption = None,
) -> None:
    """Review candidates: interactively (approve / reject / skip), or with flags;
    --marked lists the memories marked for review, --confirm clears a mark."""
    action = all_matching.lower() if all_matching is not None else None
    _require_reason(bool(reject) or action == "reject", reason)
    flt = _queue_filters(session, memory_type, tags, min_occurrences)
    role, whole_project = _review_role(
        action, reading=list_only or marked, deciding=bool(approve or reject or confirm)
    )
    with keyed(ctx, project, role, whole_project=whole_project) as (gm, project):
        if confirm:
            _confirm(gm, confirm, reason, project)
        elif marked:
            out.print(_marks(gm.needs_review(first=first, project_id=project).items), crop=False)
        elif approve or reject:
            _decide(gm, approve or [], reject or [], reason, project)
        elif action is not None:
            _bulk(gm, flt, action, reason=reason, dry_run=dry_run, project=project)
        else:
            _queue_or_prompt(
                gm, flt, order, first, list_only=list_only, reason=reason, project=project
            )


def _require_reason(rejecting: bool, reason: str | None) -> None:
    """A rejection is refused before anything is opened, so no candidate of a
    batch is rejected without the reason the log keeps for it."""
    if rejecting and not (reason or "").strip():
        with reported_errors():
            raise InvalidInputError("--reason is required to reject", field="reason")


def _queue_filters(
    session: str | None, memory_type: str | None, tags: list[str] | None, min_occurrences: int
) -> dict[str, Any]:
    """The queue filters as the service takes them: an option left out is no filter."""
    flt: dict[str, Any] = {
        "session_id": session,
        "memory_type": memory_type,
        "tags": tags or [],
        "min_occurrences": min_occurrences,
    }
    return {k: v for k, v in flt.items() if v is not None}


def _review_role(action: str | None, *, reading: bool, deciding: bool) -> tuple[Role, bool]:
    """The role the server asks of the same calls, and whether it spans the whole
    project: the queue is read, a review (flags or the prompt) writes, and --all
    decides for every agent's candidates."""
    if action is not None:
        return Role.ADMIN, True
    if reading and not deciding:
        return Role.READ, False
    return Role.WRITE, False


def _confirm(gm: GraphMem, ids: list[str], reason: str | None, project: str | None) -> None:
    """--confirm: each marked memory still holds, so its mark goes."""
    for memory_id in ids:
        gm.confirm(memory_id, reason, project_id=project)
        out.print(f"confirmed {memory_id}")


def _decide(
    gm: GraphMem, approve: list[str], reject: list[str], reason: str | None, project: str | None
) -> None:
    """--approve and --reject: the named candidates, approvals first."""
    for memory_id in approve:
        out.print(f"approved {gm.approve(memory_id, project_id=project).id}")
    for memory_id in reject:
        gm.reject(memory_id, reason or "", project_id=project)
        out.print(f"rejected {memory_id}")


def _bulk(
    gm: GraphMem,
    flt: dict[str, Any],
    action: str,
    *,
    reason: str | None,
    dry_run: bool,
    project: str | None,
) -> None:
    """--all: one decision for every candidate the filters select, each listed."""
    result = gm.bulk_review(flt, action, reason=reason, dry_run=dry_run, project_id=project)
    verb = f"would {result.action}" if result.dry_run else f"{result.action}d"
    changed = result.matched if result.dry_run else result.applied
    out.print(f"{verb} {plural(len(changed), 'candidate')}")
    for memory_id in changed:
        out.print(memory_id)


def _approve_item(gm: GraphMem, item: ReviewItem, reason: str | None, project: str | None) -> None:
    """``a``: an approval needs no reason."""
    gm.approve(item.memory.id, project_id=project)
    out.print("approved")


def _reject_item(gm: GraphMem, item: ReviewItem, reason: str | None, project: str | None) -> None:
    """``r``: the --reason given, or one asked for this candidate."""
    why = reason or typer.prompt("reason")
    gm.reject(item.memory.id, why, project_id=project)
    out.print("rejected")


_CHOICES: dict[str, Callable[[GraphMem, ReviewItem, str | None, str | None], None]] = {
    "a": _approve_item,
    "r": _reject_item,
}
"""What each answer at the prompt does, by its first letter; any other skips
(``q`` quits, before this table is asked)."""


def _queue_or_prompt(
    gm: GraphMem,
    flt: dict[str, Any],
    order: str,
    first: int,
    *,
    list_only: bool,
    reason: str | None,
    project: str | None,
) -> None:
    """The queue: listed with --list (or when it is empty), otherwise gone through
    at the prompt."""
    page = gm.review_queue(flt, order=order.lower(), first=first, project_id=project)
    if list_only or not page.items:
        out.print(_queue(page.items), crop=False)
    else:
        _go_through(gm, page.items, reason, project)


def _go_through(
    gm: GraphMem, items: list[ReviewItem], reason: str | None, project: str | None
) -> None:
    """The prompt: each candidate shown, then approved, rejected, skipped, or the
    review ends."""
    for item in items:
        out.print(_queue([item]), crop=False)
        choice = typer.prompt("[a]pprove, [r]eject, [s]kip or [q]uit", default="s")
        if choice.startswith("q"):
            break
        act = _CHOICES.get(choice[:1])
        if act is not None:
            act(gm, item, reason, project)


def _marks(memories: list[Memory]) -> Table:
    table = Table(title=f"{plural(len(memories), 'memory', 'memories')} marked for review")
    for column in ("id", "why", "content"):
        table.add_column(column, no_wrap=column == "id")
    for memory in memories:
        mark = memory.review_mark
        table.add_row(
            memory.id,
            shown(mark.reason if mark else "-"),
            shown(" ".join(memory.content.split())[:80]),
        )
    return table


def _queue(items: list[ReviewItem]) -> Table:
    table = Table(title=plural(len(items), "candidate"))
    for column in ("id", "occurrences", "feedback", "age", "near duplicates", "content"):
        table.add_column(column, no_wrap=column == "id")
    for item in items:
        table.add_row(
            item.memory.id,
            str(item.occurrences),
            f"{item.feedback:+g}",
            f"{item.age_seconds / 3600:.1f} h",
            ", ".join(item.near_duplicates) or "-",
            shown(" ".join(item.memory.content.split())[:80]),
        )
    return table


@app.command()
def migrate(ctx: typer.Context) -> None:
    """Bring the graph up to the current schema; safe to run again."""
    with opened(ctx) as gm:
        reports = gm.migrate()
    if not reports:
        out.print("the graph is up to date")
        return
    table = Table(title="Migrations applied")
    for column in ("version", "migration", "changed"):
        table.add_column(column)
    for r in reports:
        table.add_row(str(r.version), r.name, str(r.changed))
    out.print(table)
