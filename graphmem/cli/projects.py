"""``graphmem project``: how one project runs (its ``ProjectSettings``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from graphmem.cli.common import ProjectOption, opened, out, reported_errors
from graphmem.cli.common import app as root
from graphmem.domain.checks import parse
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import AutoLink
from graphmem.domain.projects import ProjectSettings, ProjectSettingsUpdate
from graphmem.settings import env_name

project = typer.Typer(help="Show and change a project's settings.", no_args_is_help=True)
root.add_typer(project, name="project")

LINKS_HELP = ", ".join(link.value for link in AutoLink)


@project.command("settings")
def settings(
    ctx: typer.Context,
    auto_links: Annotated[
        str | None,
        typer.Option(
            "--auto-links",
            metavar="KINDS",
            help=f"Set the links written at ingest, comma-separated ({LINKS_HELP}); "
            "'none' turns them off.",
            show_default=False,
        ),
    ] = None,
    default_visibility: Annotated[
        str | None,
        typer.Option(
            "--default-visibility",
            metavar="private|shared",
            help="Set who sees a new memory whose agent does not say (unset: the server's "
            f"{env_name('default_visibility')}).",
            show_default=False,
        ),
    ] = None,
    project_id: ProjectOption = None,
) -> None:
    """Show the project's settings; with an option, change that setting first."""
    change = _change(auto_links, default_visibility)
    with opened(ctx) as gm:
        if change is None:
            current = gm.project_settings(project_id=project_id)
        else:
            current = gm.set_project_settings(change, project_id=project_id)
    out.print(_table(current, project_id or gm.default_project))


def _change(auto_links: str | None, default_visibility: str | None) -> ProjectSettingsUpdate | None:
    """The settings the options name, validated before the store opens."""
    if auto_links is None and default_visibility is None:
        return None
    given: dict[str, object] = {"default_visibility": default_visibility}
    with reported_errors():
        if auto_links is not None:
            kinds = [k.strip() for k in auto_links.split(",") if k.strip()]
            if kinds == ["none"]:
                kinds = []
            if "none" in kinds:
                raise InvalidInputError(
                    "--auto-links: 'none' stands alone (it turns every link off)",
                    field="auto_links",
                )
            given["auto_links"] = kinds
        return parse(ProjectSettingsUpdate, given)


def _table(current: ProjectSettings, project_id: str) -> Table:
    table = Table(title=f"project {project_id}", box=box.SIMPLE_HEAD)
    table.add_column("setting")
    table.add_column("value")
    table.add_row("auto_links", ", ".join(link.value for link in current.auto_links) or "none")
    visibility = current.default_visibility
    table.add_row("default_visibility", visibility.value if visibility else "the server's (unset)")
    return table
