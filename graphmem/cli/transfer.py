"""``graphmem export`` and ``graphmem import``: a project in and out of the
store the settings name, in graphmem's own JSONL (lossless, to move a
project between FalkorDB and Neo4j or keep a copy), Sky's short-term /
long-term JSONL, GraphML or a Cypher script.

Both open the store through ``GraphMem`` like every other command, then talk
to it directly (no embedding model is loaded), so moving a project from
FalkorDB to Neo4j is an export with one set of ``GRAPHMEM_*`` variables and
an import with the other. A progress bar goes to standard
error when it is a terminal; summaries and skipped lines go there too, so
``graphmem export -`` pipes clean data.

With an API key in GRAPHMEM_API_KEY both act as the key lets them, resolved as
the server resolves a request's (``key_scope``; export reads through
``keyed``, as ``list`` and ``show`` do): export reads a project the key holds,
and with a key bound to an agent only what that agent may read (the shared
memories and its own private ones, and the relations, events and failure
capsules among them); import needs an admin key bound to no agent (it
writes every agent's records as the file has them). Without a key they have
local access: the whole project.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from graphmem.cli.common import ProjectOption, app, err, key_scope, keyed, opened
from graphmem.cli.terminal import shown
from graphmem.domain.auth import Role
from graphmem.domain.clock import stored_now
from graphmem.domain.wording import plural
from graphmem.services.transfer import ImportReport, TransferCounts, export_project, import_project
from graphmem.services.transfer.cypher_script import export_cypher
from graphmem.services.transfer.graphml import export_graphml
from graphmem.services.transfer.paging import project_summary
from graphmem.services.transfer.report import NOUNS, listed
from graphmem.services.transfer.sky import Term, export_sky, import_sky
from graphmem.settings import names


class ExportFormat(StrEnum):
    GRAPHMEM = "graphmem"
    SKY = "sky"
    GRAPHML = "graphml"
    CYPHER = "cypher"


class ImportFormat(StrEnum):
    GRAPHMEM = "graphmem"
    SKY = "sky"


class SkyTerm(StrEnum):
    SHORT = "short"
    LONG = "long"
    ALL = "all"


SUFFIXES = {"": ExportFormat.GRAPHMEM, ".jsonl": ExportFormat.GRAPHMEM,
            ".ndjson": ExportFormat.GRAPHMEM, ".graphml": ExportFormat.GRAPHML,
            ".cypher": ExportFormat.CYPHER, ".cql": ExportFormat.CYPHER}  # fmt: skip
"""The export format a file's suffix chooses; any other suffix is refused, not
written as JSONL under a name that says otherwise."""
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar (there is none off a terminal).")
]


@app.command("export")
def export_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="File to write; '-' for standard output.")] = "-",
    format: Annotated[
        ExportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="graphmem (lossless JSONL), sky, graphml or cypher; default: by the "
            "file's suffix (.jsonl, .ndjson or none: graphmem; .graphml; .cypher, .cql).",
            show_default=False,
            case_sensitive=False,
        ),
    ] = None,
    project: ProjectOption = None,
    term: Annotated[
        SkyTerm,
        typer.Option(
            help="sky: short-term memories, long-term ones, or all.", case_sensitive=False
        ),
    ] = SkyTerm.ALL,
    quiet: QuietOption = False,
) -> None:
    """Write a project: graphmem's JSONL holds all of it (memories with
    embeddings, relations, sessions, promotion and staging logs). With
    GRAPHMEM_API_KEY, only what that key may read."""
    chosen = format or _format_of(file)
    with keyed(ctx, project, Role.READ) as (gm, named):
        project_id = named or gm.default_project
        store = gm.store
        total = project_summary(store, project_id).memories
        with (
            _output(file, binary=chosen is ExportFormat.GRAPHML) as out,
            _bar("exporting memories", total, quiet, bytes_=False) as advance,
        ):
            if chosen is ExportFormat.GRAPHMEM:
                counts = export_project(store, project_id, out, progress=advance)
            elif chosen is ExportFormat.SKY:
                only = None if term is SkyTerm.ALL else Term(term.value)
                counts = export_sky(store, project_id, out, term=only, progress=advance)
            elif chosen is ExportFormat.GRAPHML:
                counts = export_graphml(store, project_id, out, progress=advance)
            else:
                counts = export_cypher(store, project_id, out, progress=advance)
    _exported(project_id, chosen, counts)


def _format_of(file: str) -> ExportFormat:
    """The format a file's suffix names; a usage error for a suffix that names none."""
    if file == "-":
        return ExportFormat.GRAPHMEM
    suffix = Path(file).suffix.lower()
    if suffix not in SUFFIXES:
        known = ", ".join(s for s in SUFFIXES if s)
        formats = ", ".join(f.value for f in ExportFormat)
        raise typer.BadParameter(
            f"no export format has the suffix {suffix!r} (suffixes: {known}); "
            f"name the format with --format ({formats})",
            param_hint="FILE",
        )
    return SUFFIXES[suffix]


@app.command("import")
def import_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="File to read; '-' for standard input.")],
    format: Annotated[
        ImportFormat,
        typer.Option(
            "--format", "-f", help="graphmem (JSONL export) or sky.", case_sensitive=False
        ),
    ] = ImportFormat.GRAPHMEM,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            help="Project to import into (default: graphmem: the exported one; "
            f"sky: {names.PROJECT}).",
            show_default=False,
        ),
    ] = None,
    term: Annotated[
        Term | None,
        typer.Option(
            help="sky: the file holds short-term or long-term memories "
            "(default: long if the file name says 'long', else short).",
            show_default=False,
        ),
    ] = None,
    session: Annotated[
        str, typer.Option(help="sky: the session imported memories go in.")
    ] = "default",
    quiet: QuietOption = False,
) -> None:
    """Load a file into a project. Importing the same file again adds
    nothing: records already there are merged. Bad lines are listed with their
    line numbers and the exit status is 1; a graphmem file with a bad line then
    leaves nothing behind (what it created is removed again). With
    GRAPHMEM_API_KEY, the key must be an admin key of the project, bound to no agent."""
    with _input(file) as (lines, size), opened(ctx) as gm:
        # A graphmem file goes into its own project unless --project says: read
        # from its header, so that a key is checked against the project written to.
        first = lines.readline()
        named = project
        if format is ImportFormat.GRAPHMEM and named is None:
            named = _exported_project(first)
        target, _ = key_scope(gm, named, Role.ADMIN, whole_project=True)
        with _bar("importing", size, quiet, bytes_=True) as advance:
            counted = _counting(itertools.chain([first] if first else [], lines), advance)
            if format is ImportFormat.GRAPHMEM:
                report = import_project(gm.store, counted, project_id=target)
            else:
                report = import_sky(
                    gm.store,
                    counted,
                    project_id=target,
                    term=term or _term_of(file),
                    session_id=session,
                    scorer=gm.scorer,
                    now=stored_now(gm.clock),
                )
    _imported(report)
    if not report.complete:
        raise typer.Exit(1)


def _term_of(file: str) -> Term:
    """Sky names its files after their term (``long_term.jsonl``)."""
    return Term.LONG if "long" in Path(file).name.lower() else Term.SHORT


@contextmanager
def _output(file: str, *, binary: bool) -> Iterator[IO]:
    if file == "-":
        yield sys.stdout.buffer if binary else sys.stdout
        return
    with open(file, "wb" if binary else "w", encoding=None if binary else "utf-8") as handle:
        yield handle


@contextmanager
def _input(file: str) -> Iterator[tuple[IO[bytes], int | None]]:
    if file == "-":
        yield sys.stdin.buffer, None
        return
    path = Path(file)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {file}: {exc.strerror}", param_hint="FILE") from None
    with handle:
        yield handle, path.stat().st_size


def _exported_project(first: bytes) -> str | None:
    """The project a graphmem export names in its header line, if it names one."""
    try:
        header = json.loads(first)
    except ValueError:
        return None
    project = header.get("project_id") if isinstance(header, dict) else None
    return project if isinstance(project, str) and project else None


def _counting(lines: Iterable[bytes], advance: Callable[[int], None]) -> Iterator[str]:
    """The file's lines as text, telling the progress bar how many bytes went by."""
    for raw in lines:
        advance(len(raw))
        yield raw.decode("utf-8", errors="replace")


@contextmanager
def _bar(
    label: str, total: int | None, quiet: bool, *, bytes_: bool
) -> Iterator[Callable[[int], None]]:
    columns = [TextColumn(label), BarColumn(),
               DownloadColumn() if bytes_ else MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn()]  # fmt: skip
    with Progress(*columns, console=err, disable=quiet or not err.is_terminal) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


def _exported(project_id: str, format: ExportFormat, counts: TransferCounts) -> None:
    held = ", ".join(plural(n, *NOUNS[k]) for k, n in counts.counts.items())
    err.print(f"exported project {project_id} ({format.value}): {held}")


def _imported(report: ImportReport) -> None:
    """One summary line: what went in, or (a bad line) that nothing did and what
    was written all the same; then each bad line and each warning."""
    if report.rolled_back or report.refused:
        removed = (
            f", so what it had created ({listed(report.rolled_back)}) was removed again"
            if report.rolled_back
            else ""
        )
        kept = (
            f"; {listed(report.merged)} already there took the file's properties"
            if report.merged
            else ""
        )
        err.print(
            Text(
                f"nothing imported into project {report.project_id}: "
                f"{plural(len(report.skipped), 'bad line')}{removed}{kept}; fix the lines "
                "and import again",
                style="bold red",
            )
        )
    else:
        err.print(
            f"imported into project {report.project_id}: created {listed(report.created)}; "
            f"merged {listed(report.merged)}; skipped {plural(len(report.skipped), 'line')}"
        )
    for skipped in report.skipped:
        err.print(shown(f"line {skipped.line}: {skipped.reason}", style="yellow"))
    for warning in report.warnings:
        err.print(shown(f"warning: {warning}", style="bold yellow"))
