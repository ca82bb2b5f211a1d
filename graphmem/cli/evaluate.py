"""``graphmem evaluate``: the consistency evaluator on the command line.

The exit code gates deploys: 0 when no finding reaches ``--fail-on``, 3 when
one does; 1 and 2 keep their meaning for every command (the command failed,
the command line was wrong: a ``--project`` that does not exist is 2).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from graphmem.cli.common import (
    ProjectOption,
    app,
    err,
    opened,
    out,
    reported_errors,
    require_project,
)
from graphmem.cli.terminal import escape_controls
from graphmem.domain.consistency import ConsistencyReport, Severity
from graphmem.domain.models import Memory
from graphmem.domain.wording import plural
from graphmem.services.evaluator.page import render_html, shown_memory_ids
from graphmem.services.evaluator.table import render_table

FINDINGS_EXIT = 3


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    HTML = "html"


class FailOn(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NEVER = "never"


@app.command()
def evaluate(
    ctx: typer.Context,
    project: ProjectOption = None,
    all_projects: Annotated[
        bool, typer.Option("--all-projects", help="Evaluate every project, one at a time.")
    ] = False,
    format: Annotated[
        Format, typer.Option("--format", help="How to show the report.", case_sensitive=False)
    ] = (Format.TABLE),
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Write the report here instead of stdout (a directory with --all-projects "
            "and --format html).",
            show_default=False,
        ),
    ] = None,
    fail_on: Annotated[
        FailOn,
        typer.Option(
            "--fail-on",
            help="Exit with 3 when a finding of this severity or worse exists.",
            case_sensitive=False,
        ),
    ] = FailOn.ERROR,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Apply the safe fixes (recompute importance, fill archived_at, archive "
            "orphans); each is listed. Run with --dry-run first to see them.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --fix: list the fixes, change nothing.")
    ] = False,
    evidence: Annotated[
        bool,
        typer.Option(
            "--evidence",
            help="Write each candidate's relevance evidence (may activate candidates).",
        ),
    ] = False,
) -> None:
    """Check a project's memory graph for contradictions and report metrics.

    Exit code 3 when a finding at or above --fail-on exists.
    """
    if dry_run and not fix:
        raise typer.BadParameter("--dry-run only applies to --fix", param_hint="--dry-run")
    if all_projects and project is not None:
        raise typer.BadParameter("name a --project or --all-projects, not both")
    reports: list[ConsistencyReport] = []
    # The HTML page shows what each finding's memories say: read them while the store is open.
    contents: dict[str, dict[str, Memory]] = {}
    with opened(ctx) as gm:
        # A typo must not pass as an empty, healthy project.
        require_project(gm, project)
        projects = gm.evaluator.projects() if all_projects else [project]
        for name in projects:
            with err.status(f"evaluating {name or 'project'}..."):
                report = gm.evaluate(fix=fix, dry_run=dry_run, evidence=evidence, project_id=name)
                reports.append(report)
                if format is Format.HTML:
                    read = gm.get_many(shown_memory_ids(report), project_id=report.project_id)
                    contents[report.id] = {m.id: m for m in read if m is not None}
    with reported_errors():
        _show(reports, format, output, many=all_projects, contents=contents)
    if fail_on is not FailOn.NEVER:
        worst = Severity(fail_on.value)
        failing = sum(len(r.at_or_above(worst)) for r in reports)
        if failing:
            err.print(
                Text(f"{plural(failing, 'finding')} at or above {worst.value}", style="bold red"),
            )
            raise typer.Exit(FINDINGS_EXIT)


def _show(
    reports: list[ConsistencyReport],
    format: Format,
    output: Path | None,
    *,
    many: bool,
    contents: dict[str, dict[str, Memory]],
) -> None:
    if format is Format.TABLE:
        for report in reports:
            out.print(render_table(report), crop=False)
        return
    if format is Format.JSON:
        if many:
            body = "[\n" + ",\n".join(r.to_json() for r in reports) + "\n]"
        else:
            body = reports[0].to_json()
        _write(body, output)
        return
    if many:
        if output is None:
            raise typer.BadParameter("--format html with --all-projects needs --output DIR")
        output.mkdir(parents=True, exist_ok=True)
        for report in reports:
            path = output / f"consistency-{report.project_id}.html"
            path.write_text(render_html(report, contents[report.id]), encoding="utf-8")
            err.print(f"wrote {path}")
        return
    _write(render_html(reports[0], contents[reports[0].id]), output)


def _write(body: str, output: Path | None) -> None:
    if output is None:
        # The HTML page quotes memories; JSON escapes what it holds itself.
        typer.echo(escape_controls(body))
    else:
        output.write_text(body + "\n", encoding="utf-8")
        err.print(f"wrote {output}")
