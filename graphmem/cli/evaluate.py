"""``graphmem evaluate``: the consistency evaluator on the command line.

The exit code gates deploys and is read by jobs, so each outcome a job acts on
differently has its own: 0 when no finding reaches ``--fail-on``, 3 when one
does (after ``--fix``, one that remains), 4 for a ``--project`` that does not
exist (a typo to fix, not a healthy empty project), 5 when the store is
unavailable (try again later); 1 and 2 keep their meaning for every command
(the command failed, the command line was wrong).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from graphmem.domain.errors import StoreUnavailableError
from graphmem.domain.models import Memory
from graphmem.domain.wording import plural
from graphmem.services.evaluator.charts import plots_missing
from graphmem.services.evaluator.page import render_html, shown_memory_ids
from graphmem.services.evaluator.table import render_table

if TYPE_CHECKING:
    from graphmem.api import GraphMem

FINDINGS_EXIT = 3
UNKNOWN_PROJECT_EXIT = 4
STORE_UNAVAILABLE_EXIT = 5


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
            help="Exit with 3 when a finding of this severity or worse exists (after "
            "--fix: remains).",
            case_sensitive=False,
        ),
    ] = FailOn.ERROR,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Apply the safe fixes (recompute importance, fill archived_at, archive "
            "orphans), each listed, then check again: the report and exit code are of what "
            "remains. Run with --dry-run first to see them.",
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

    Exit codes: 0 no finding at or above --fail-on; 1 the command failed; 2 the
    command line was wrong; 3 a finding at or above --fail-on (after --fix: one
    that remains); 4 no project named --project; 5 the store is unavailable.
    """
    _check_options(
        project, all_projects=all_projects, format=format, output=output, fix=fix, dry_run=dry_run
    )
    with opened(ctx, {StoreUnavailableError: STORE_UNAVAILABLE_EXIT}) as gm:
        # A typo must not pass as an empty, healthy project.
        require_project(gm, project, exit_code=UNKNOWN_PROJECT_EXIT)
        projects = gm.evaluator.projects() if all_projects else [project]
        reports, contents = _evaluate_each(
            gm, projects, html=format is Format.HTML, fix=fix, dry_run=dry_run, evidence=evidence
        )
    with reported_errors():
        _show(reports, format, output, many=all_projects, contents=contents)
    _gate(reports, fail_on)


def _check_options(
    project: str | None,
    *,
    all_projects: bool,
    format: Format,
    output: Path | None,
    fix: bool,
    dry_run: bool,
) -> None:
    """The combinations that cannot work, refused before the store is opened (exit 2)."""
    if dry_run and not fix:
        raise typer.BadParameter("--dry-run only applies to --fix", param_hint="--dry-run")
    if all_projects and project is not None:
        raise typer.BadParameter("name a --project or --all-projects, not both")
    if all_projects and format is Format.HTML and output is None:
        raise typer.BadParameter("--format html with --all-projects needs --output DIR")


def _evaluate_each(
    gm: GraphMem,
    projects: Sequence[str | None],
    *,
    html: bool,
    fix: bool,
    dry_run: bool,
    evidence: bool,
) -> tuple[list[ConsistencyReport], dict[str, dict[str, Memory]]]:
    """Each project's report, and for the HTML page the memories its findings
    name, by report id: the page shows what they say, so they are read while the
    store is open."""
    reports: list[ConsistencyReport] = []
    contents: dict[str, dict[str, Memory]] = {}
    for name in projects:
        with err.status(f"evaluating {name or 'project'}..."):
            report = _evaluated(gm, name, fix=fix, dry_run=dry_run, evidence=evidence)
            reports.append(report)
            if html:
                read = gm.get_many(shown_memory_ids(report), project_id=report.project_id)
                contents[report.id] = {m.id: m for m in read if m is not None}
    return reports, contents


def _gate(reports: list[ConsistencyReport], fail_on: FailOn) -> None:
    """The exit code a deploy gates on: 3 when a finding reaches ``--fail-on``."""
    if fail_on is FailOn.NEVER:
        return
    worst = Severity(fail_on.value)
    failing = sum(len(r.at_or_above(worst)) for r in reports)
    if failing:
        err.print(
            Text(f"{plural(failing, 'finding')} at or above {worst.value}", style="bold red"),
        )
        raise typer.Exit(FINDINGS_EXIT)


def _evaluated(
    gm: GraphMem, project: str | None, *, fix: bool, dry_run: bool, evidence: bool
) -> ConsistencyReport:
    """One project's report; after fixes were applied, the report of a second
    check, carrying the fixes: a report describes the graph as its snapshot saw
    it, and a job gating on ``--fix`` must see what remains, not what was fixed."""
    report = gm.evaluate(fix=fix, dry_run=dry_run, evidence=evidence, project_id=project)
    if report.fixes is None or not report.fixes["applied"]:
        return report
    after = gm.evaluate(project_id=report.project_id)
    after.fixes = report.fixes
    applied = len(report.fixes["applied"])
    after.notes.insert(
        0,
        f"checked again after {plural(applied, 'fix', 'fixes')}: "
        f"report {report.id} holds the findings before them",
    )
    return after


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
    missing = plots_missing()
    if missing is not None:
        err.print(f"the page has no plots: {missing}", markup=False)
    if many:
        assert output is not None  # checked with the other options, before evaluating
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
