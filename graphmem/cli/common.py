"""What every ``graphmem`` command shares: the app, the consoles, opening the
store and turning the API's deliberate errors into one red line.

Every command opens the store through the Python API, does one thing and
closes it again, so the embedded database is only running while a command
needs it. Errors the API raises on purpose become one red line and exit code
1: a person at a terminal should learn what to fix, not read a traceback.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar, get_args

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.text import Text
from typer.core import TyperArgument, TyperGroup, TyperOption

from graphmem.cli.terminal import escaped, shown
from graphmem.domain.auth import Role
from graphmem.domain.errors import ForbiddenError, GraphMemError, invalid_input
from graphmem.domain.kinds import MemoryType
from graphmem.domain.viewer import acting_as
from graphmem.settings import Settings, env_name, names, setting_named

if TYPE_CHECKING:
    from typer._click.core import Command, Context

    from graphmem.api import GraphMem
    from graphmem.cli.server_first import ServedReader


class Commands(TyperGroup):
    """Typer's help prints each option's Python type: ``<bool>`` beside a flag,
    which takes no value, and ``<list[str]>`` beside an option given once per
    value. Here a flag shows no value and a repeated option the type of one."""

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            name_values(command, ctx)
            unwrap_help(command)
        return command

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


_ITEM = re.compile(r"\s|[-*] |\d+[.)] ")
"""A line that starts an item of a list or an indented block: kept on a line of its own."""


def unwrapped(text: str) -> str:
    """Help text with each paragraph's line breaks joined, but before list items
    and in click's ``\\b`` paragraphs. The docstrings are wrapped for the source,
    and typer's help keeps those breaks and wraps again at the terminal's width,
    so a line ended mid-sentence wherever the two widths differ."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else _joined(p) for p in paragraphs)


def _joined(paragraph: str) -> str:
    lines: list[str] = []
    for line in paragraph.split("\n"):
        if lines and not _ITEM.match(line):
            lines[-1] += " " + line
        else:
            lines.append(line)
    return "\n".join(lines)


def unwrap_help(command: Command) -> None:
    """Join the line breaks of ``command``'s help and its subcommands' (``unwrapped``)."""
    if command.help:
        command.help = unwrapped(command.help)
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            unwrap_help(sub)


def _one_value(param: TyperOption | TyperArgument) -> str:
    """``<str>`` for a parameter given as ``list[str]``, one value at a time."""
    (value,) = get_args(param.type_descriptor.annotation)
    return f"<{getattr(value, '__name__', value)}>"


def name_values(command: Command, ctx: Context) -> None:
    """Set the help's value placeholder of every flag and repeated option."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperArgument) and param.type_descriptor.is_list:
            # An argument's type column ignores its metavar: this one object's
            # rendering is replaced, not typer's.
            shown = _one_value(param)

            def rendered(ctx: Context, shown: str = shown) -> str:
                return shown

            param.display_type_rich = rendered  # type: ignore[method-assign]
        if not isinstance(param, TyperOption) or param.metavar is not None:
            continue
        if param.is_flag:
            param.metavar = ""
        elif param.type_descriptor.is_list:
            param.metavar = _one_value(param)
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            name_values(sub, ctx)


app = typer.Typer(
    name="graphmem",
    cls=Commands,
    help="A graph-backed memory store for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
PIPE_WIDTH = 160
# Piped output is read by scripts and people alike: do not cut it at 80 columns.
# Both print control characters in what they are given escaped (graphmem.cli.terminal).
out = escaped(Console(width=None if sys.stdout.isatty() else PIPE_WIDTH))
err = escaped(Console(stderr=True, soft_wrap=True))

TYPES_HELP = ", ".join(t.value for t in MemoryType)
ProjectOption = Annotated[
    str | None, typer.Option("--project", help=f"Project id (default: {names.PROJECT}).")
]
AsOfOption = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Answer as the store stood at this past time (ISO 8601, or epoch seconds): "
        "what held then, with the tiers and statuses of then.",
        show_default=False,
    ),
]


def time_arg(value: str | None) -> float | str | None:
    """A time given on the command line: epoch seconds arrive as text."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return value


AgentOption = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="Act as this agent: see its own memories and the shared ones (default: no "
        "agent, every memory of the project).",
    ),
]


@app.callback()
def main(
    ctx: typer.Context,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            envvar=names.DATA_DIR,
            help="Where the embedded database keeps its files.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Only gathers the global options: each command opens the store itself."""
    ctx.obj = data_dir


@contextmanager
def reported_errors(exits: Mapping[type[GraphMemError], int] | None = None) -> Iterator[None]:
    """Turn the API's deliberate errors into ``error [CODE]: message`` and exit 1,
    or the code ``exits`` names for the error's class (the first that matches):
    a command run by a job can tell an outage from a failure that needs a person."""
    try:
        yield
    except GraphMemError as exc:
        err.print(shown(f"error [{exc.code}]: {exc.message}", style="bold red"))
        codes = exits or {}
        raise typer.Exit(next((c for k, c in codes.items() if isinstance(exc, k)), 1)) from None


def settings_for(ctx: typer.Context, **overrides: Any) -> Settings:
    """Settings from the environment, with what the command line named on top."""
    given = {key: value for key, value in overrides.items() if value is not None}
    if ctx.obj is not None:
        given["data_dir"] = ctx.obj
    try:
        return Settings(**given)
    except ValidationError as exc:
        raise invalid_input(exc, locate=setting_named) from None


@contextmanager
def opened(
    ctx: typer.Context, exits: Mapping[type[GraphMemError], int] | None = None
) -> Iterator[GraphMem]:
    """The store of the command's settings, open for the block; errors are
    reported as ``reported_errors(exits)`` reports them."""
    from graphmem.api import GraphMem  # the store and the services: only once a command runs

    settings = settings_for(ctx)
    say_which_store(settings)
    with reported_errors(exits), GraphMem.open(settings) as gm:
        yield gm


def say_which_store(settings: Settings) -> None:
    """One line on stderr when the server of this data directory serves another
    store than the one this command opens: the command acts on its own settings'
    store (server-first commands pass that server over too), and without the
    line it would seem to act on the server's."""
    from graphmem.cli.server_first import other_store
    from graphmem.server.discovery import store_of

    server = other_store(settings)
    if server is None:
        return
    err.print(
        f"graphmem: acting on {store_of(settings)}, the store this command's settings "
        f"name, not on the store of the server of {settings.store.data_dir} ({server.named()}); "
        f"to act on that one, use the server's settings ({env_name('backend')}={server.backend} "
        "and its store's)",
        markup=False,
    )


T = TypeVar("T")


def served_or_local(
    ctx: typer.Context,
    served: Callable[[Settings], T | None],
    local: Callable[[GraphMem], T],
) -> T:
    """The answer of the server of this data directory, or, when none serves it,
    of the store opened here: one call, the same result and errors either way."""
    with reported_errors():
        answer = served(settings_for(ctx))
    if answer is not None:
        return answer
    with opened(ctx) as gm:
        return local(gm)


def read_served_or_local(
    ctx: typer.Context,
    project: str | None,
    role: Role,
    read: Callable[[GraphMem | ServedReader, str | None], T],
) -> T:
    """``read`` answered by the server of this data directory, or, when none
    answers, by the store opened here as ``keyed`` opens it: a command that only
    reads runs the same body on either (read again here if the server stopped
    answering part way, which a read may)."""
    from graphmem.cli import server_first

    with reported_errors():
        reader = server_first.reader(settings_for(ctx))
        if reader is not None:
            try:
                return read(reader, project)
            except server_first.NoServer:
                pass
    with keyed(ctx, project, role) as (gm, scope):
        return read(gm, scope)


def key_scope(
    gm: GraphMem, project: str | None, role: Role, *, whole_project: bool = False
) -> tuple[str, str | None]:
    """The project a command that reads or writes the store directly acts in, and
    the agent it acts as, for the key in GRAPHMEM_API_KEY, resolved as the server
    resolves a request's: the key must be live and hold the project and the role,
    and a key bound to an agent acts as that agent (refused outright when the
    command covers every agent's records). The project is ``--project``, else
    GRAPHMEM_PROJECT, else the key's only project or the default one.

    Without a key the command has local access, as every command that opens the
    store has: the project named (else GRAPHMEM_PROJECT's), every agent's records.
    """
    token = os.environ.get(names.API_KEY)
    if not token:
        return project or gm.default_project, None
    principal = gm.keys.authenticate(token)
    requested = project or os.environ.get(names.PROJECT) or None
    project_id = principal.project_for(requested, gm.default_project, role)
    if whole_project and principal.agent_id is not None:
        raise ForbiddenError(
            f"this API key acts as agent {principal.agent_id!r}; this operation covers every "
            "agent's records and needs a key bound to no agent"
        )
    return project_id, principal.agent_id


@contextmanager
def keyed(
    ctx: typer.Context, project: str | None, role: Role, *, whole_project: bool = False
) -> Iterator[tuple[GraphMem, str | None]]:
    """The store opened here and the project to read, for the key in
    GRAPHMEM_API_KEY as ``key_scope`` resolves it, acting as the key's agent for
    the block: a command reading the store itself sees what the same key sees
    through the server. Without a key, local access and the project named."""
    with opened(ctx) as gm:
        if not os.environ.get(names.API_KEY):
            yield gm, project
            return
        project_id, agent = key_scope(gm, project, role, whole_project=whole_project)
        with acting_as(agent):
            yield gm, project_id


MISSING_PROJECT_EXIT = 2
"""A project named that does not exist is a wrong command line, as a bad option is."""


class Projects(Protocol):
    """What lists the projects there are: the store opened here, or a server."""

    def project_ids(self) -> list[str]: ...


def require_project(
    gm: Projects, project: str | None, *, exit_code: int = MISSING_PROJECT_EXIT
) -> None:
    """Exit with ``exit_code``, naming the projects there are, when ``project``
    names none: a typo must not pass as an empty project.
    ``None`` (no project named) always passes."""
    if project is not None:
        require_listed(project, gm.project_ids(), exit_code=exit_code)


def require_listed(
    project: str | None, known: Sequence[str], *, exit_code: int = MISSING_PROJECT_EXIT
) -> None:
    """``require_project`` with the projects there are already known: those a
    server listed for the command's key, when the command went through one."""
    if project is None or project in known:
        return
    names = ", ".join(sorted(known)) or "none"
    err.print(
        Text(
            f"error [NOT_FOUND]: project: no project named {project!r} (projects: {names})",
            style="bold red",
        )
    )
    raise typer.Exit(exit_code)
