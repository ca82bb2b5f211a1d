"""``graphmem export`` and ``graphmem import``: a whole project as JSONL, to
move it between backends (embedded FalkorDB and Neo4j) or keep a copy.

Both talk to the store the settings name (``GRAPHMEM_BACKEND`` and the rest),
so moving a project from FalkorDB to Neo4j is an export with one set of
variables and an import with the other.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from graphmem.cli.common import ProjectOption, app, err, reported_errors, settings_for
from graphmem.store import Store
from graphmem.store.factory import open_store
from graphmem.transfer import TransferCounts, export_project, import_project


@contextmanager
def store_for(ctx: typer.Context) -> Iterator[tuple[Store, str]]:
    """The configured store (no embedding model is loaded) and the default project."""
    settings = settings_for(ctx)
    with reported_errors():
        store = open_store(settings)
        try:
            yield store, settings.project
        finally:
            store.close()


@app.command("export")
def export_command(
    ctx: typer.Context,
    output: Annotated[
        str, typer.Option("--output", "-o", help="File to write; '-' for standard output.")
    ] = "-",
    project: ProjectOption = None,
) -> None:
    """Write a whole project (memories with embeddings, relations, sessions,
    promotion and staging logs) as JSONL."""
    with store_for(ctx) as (store, default_project):
        if output == "-":
            counts = export_project(store, project or default_project, sys.stdout)
        else:
            with open(output, "w", encoding="utf-8") as handle:
                counts = export_project(store, project or default_project, handle)
    _summary("exported", counts)


@app.command("import")
def import_command(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="An export file; '-' for standard input.")],
) -> None:
    """Load a project from a graphmem export into the configured store; the
    project must not hold sessions or memories there yet."""
    with store_for(ctx) as (store, _):
        if source == "-":
            project_id, counts = import_project(store, sys.stdin)
        else:
            with Path(source).open(encoding="utf-8") as handle:
                project_id, counts = import_project(store, handle)
    _summary(f"imported project {project_id}:", counts)


PLURALS = {
    "session": "sessions",
    "memory": "memories",
    "relation": "relations",
    "promotion_run": "promotion runs",
    "promotion_event": "promotion events",
    "staging_event": "staging events",
}


def _summary(verb: str, counts: TransferCounts) -> None:
    err.print(f"{verb} " + ", ".join(f"{n} {PLURALS[k]}" for k, n in counts.counts.items()))
