"""Commands that add and remove the typed relations between memories."""

from __future__ import annotations

import getpass
from typing import Annotated

import typer

from graphmem.cli import server_first
from graphmem.cli.common import ProjectOption, app, out, served_or_local
from graphmem.domain.kinds import RelationType
from graphmem.domain.relations import Relation

RELATION_TYPES_HELP = ", ".join(t.value for t in RelationType)


@app.command()
def unrelate(
    ctx: typer.Context,
    from_id: Annotated[str, typer.Argument(metavar="FROM", help="The edge's source memory.")],
    to_id: Annotated[str, typer.Argument(metavar="TO", help="The edge's target memory.")],
    relation_type: Annotated[
        str, typer.Option("--type", help=f"One of: {RELATION_TYPES_HELP}.", show_default=False)
    ],
    reason: Annotated[str, typer.Option(help="Why the relation is removed.")],
    by: Annotated[
        str | None, typer.Option(help="Who removes it (default: the login name).")
    ] = None,
    project: ProjectOption = None,
) -> None:
    """Remove one relation, logged with who removed it and why.

    Removing a SUPERSEDES relation restores the older memory, unless another
    still supersedes it.
    """
    removed_by = by or f"cli:{getpass.getuser()}"
    removed = served_or_local(
        ctx,
        lambda settings: server_first.unrelate(
            settings, from_id, to_id, relation_type,
            reason=reason, removed_by=removed_by, project=project,
        ),
        lambda gm: gm.unrelate(
            from_id, to_id, relation_type,
            reason=reason, removed_by=removed_by, project_id=project,
        ),
    )  # fmt: skip
    out.print(f"removed {_edge(removed)}")


@app.command()
def relate(
    ctx: typer.Context,
    from_id: Annotated[str, typer.Argument(metavar="FROM", help="The edge's source memory.")],
    to_id: Annotated[str, typer.Argument(metavar="TO", help="The edge's target memory.")],
    relation_type: Annotated[
        str,
        typer.Option("--type", help=f"One of: {RELATION_TYPES_HELP}.", show_default=False),
    ],
    rationale: Annotated[
        str | None, typer.Option(help="Why the two are related.", show_default=False)
    ] = None,
    weight: Annotated[float, typer.Option(help="How strongly, 0 to 1.")] = 1.0,
    project: ProjectOption = None,
) -> None:
    """Add (or update) a typed relation from one memory to another.

    FROM CONSTRAINS TO: a rule that limits the other; ENABLES: makes it possible;
    SUPERSEDES: FROM replaces TO (TO is kept, no longer served); RELATED_TO: bears on it.
    """
    added = served_or_local(
        ctx,
        lambda settings: server_first.relate(
            settings, from_id, to_id, relation_type,
            rationale=rationale, weight=weight, project=project,
        ),
        lambda gm: gm.relate(
            from_id, to_id, relation_type, rationale=rationale, weight=weight, project_id=project
        ),
    )  # fmt: skip
    out.print(f"added {_edge(added)} (weight {added.weight:.2f})")


def _edge(relation: Relation) -> str:
    return f"{relation.type.value} {relation.from_id} -> {relation.to_id}"
