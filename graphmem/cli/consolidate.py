"""``graphmem consolidate``: one memory per group of related memories.

``--dry-run`` shows the groups (with fingerprints) and writes nothing;
``--fingerprint`` then consolidates just the groups chosen, each skipped with
a note if it changed since.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any

import typer
from rich.table import Table

from graphmem.cli.common import ProjectOption, app, err, opened, out
from graphmem.cli.terminal import shown
from graphmem.domain.wording import plural
from graphmem.services.consolidator import ConsolidationResult


@app.command()
def consolidate(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the groups (with fingerprints); write nothing.")
    ] = False,
    fingerprints: Annotated[
        list[str] | None,
        typer.Option(
            "--fingerprint",
            metavar="FP",
            help="Consolidate only this group of a dry run (repeatable).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    project: ProjectOption = None,
) -> None:
    """Consolidate related memories: one memory per group, the sources archived
    as consolidated (graphmem restore brings one back)."""
    with opened(ctx) as gm, err.status("grouping related memories..."):
        result = gm.consolidate(dry_run=dry_run, fingerprints=fingerprints, project_id=project)
    if as_json:
        out.print_json(json.dumps(as_dict(result)))
        return
    if result.groups:
        out.print(_groups(result), crop=False)
    else:
        out.print(
            "nothing to consolidate: no related memories form a group "
            f"({result.eligible:,} of {result.scanned:,} memories groupable)"
        )
    for note in result.notes:
        err.print(shown(note, style="yellow"))


def as_dict(result: ConsolidationResult) -> dict[str, Any]:
    """The result as JSON: groups with member ids (not whole members), for review."""
    return {
        "project_id": result.project_id,
        "dry_run": result.dry_run,
        "scanned": result.scanned,
        "eligible": result.eligible,
        "groups": [
            {
                "fingerprint": g.fingerprint,
                "member_ids": g.member_ids,
                "content": g.content,
                "seen": g.seen,
                "reason": g.reason,
            }
            for g in result.groups
        ],
        "consolidated": [dataclasses.asdict(c) for c in result.consolidated],
        "memories_consolidated": result.memories_consolidated,
        "notes": result.notes,
    }


def _groups(result: ConsolidationResult) -> Table:
    written = {c.fingerprint: c for c in result.consolidated}
    if result.dry_run:
        title = f"would consolidate {plural(len(result.groups), 'group')}"
    elif not result.consolidated:
        title = f"consolidated nothing: {plural(len(result.groups), 'group')} skipped"
    else:
        title = (
            f"consolidated {plural(result.memories_consolidated, 'memory', 'memories')} "
            f"into {len(result.consolidated)}"
        )
    table = Table(title=f"{title} ({result.eligible:,} of {result.scanned:,} memories groupable)")
    for column in ("fingerprint", "members", "into", "reason", "content"):
        table.add_column(column, no_wrap=column in ("fingerprint", "into"))
    for group in result.groups:
        done = written.get(group.fingerprint)
        into = "-" if result.dry_run else (done.memory_id if done else "skipped")
        table.add_row(
            group.fingerprint,
            "\n".join(group.member_ids),
            into,
            shown(group.reason),
            shown(f"{group.content} ({group.seen})"),
        )
    return table
