"""``graphmem failures``: the failure capsules of a project, most recently seen
first, each with how often it recurred, what fixed it and the lesson it taught."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.text import Text

from graphmem.cli.common import ProjectOption, app, keyed, out
from graphmem.cli.terminal import escape_controls, shown
from graphmem.domain.auth import Role
from graphmem.domain.capsules import MAX_LIST, FailureCapsule, error_head
from graphmem.domain.models import Memory
from graphmem.domain.wording import plural


@app.command()
def failures(
    ctx: typer.Context,
    session: Annotated[str | None, typer.Option(help="Only this session's failures.")] = None,
    limit: Annotated[int, typer.Option(help=f"How many capsules, 1 to {MAX_LIST}.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the capsules as JSON.")] = False,
    project: ProjectOption = None,
) -> None:
    """Failure capsules: what failed, how often, what fixed it and the lesson learned."""
    with keyed(ctx, project, Role.READ) as (gm, project):
        capsules = gm.failure_capsules(session_id=session, limit=limit, project_id=project)
        lesson_ids = [c.lesson_id for c in capsules if c.lesson_id]
        lessons = {m.id: m for m in gm.get_many(lesson_ids, project_id=project) if m}
    if as_json:
        out.print_json(json.dumps([c.model_dump(mode="json") for c in capsules]))
        return
    out.print(Text(plural(len(capsules), "failure capsule"), style="bold"))
    for capsule in capsules:
        _show(capsule, lessons.get(capsule.lesson_id or ""))


def _show(capsule: FailureCapsule, lesson: Memory | None) -> None:
    out.print()
    seen = f"seen {capsule.occurrence_count}x"
    head = Text(f"{capsule.id}  {seen}", style="bold")
    if capsule.tool:
        head.append(f"  [{escape_controls(capsule.tool)}]", style="dim")
    out.print(head)
    if capsule.attempted:
        out.print(shown(f"   attempted: {capsule.attempted}"), crop=False)
    if capsule.command:
        out.print(shown(f"   command: {capsule.command}"), crop=False)
    out.print(shown(f"   error: {error_head(capsule.error)}", style="red"), crop=False)
    if capsule.fix:
        out.print(shown(f"   fix: {capsule.fix}", style="green"), crop=False)
    if capsule.session_ids:
        out.print(Text(f"   sessions: {', '.join(capsule.session_ids)}", style="dim"))
    if lesson is not None:
        out.print(
            Text(f"   lesson {lesson.id} ({lesson.status.value}): ", style="cyan").append(
                escape_controls(" ".join(lesson.content.split()))
            ),
            crop=False,
        )
