"""The ``graphmem`` command line.

A command's module is imported when the command runs, not before: the
modules import what their work needs (the store, the GraphQL schema, the
embedding model, httpx), and ``graphmem --help`` or a ``graphmem search``
sent to a running server must not wait for every other command's needs.
``COMMANDS`` names each command in ``--help`` order with its module and the
first paragraph of its help, which ``--help`` lists without importing
anything; tests/unit/test_cli_commands.py holds each entry to the command's
own docstring. A new command module adds its commands here.
"""

from __future__ import annotations

from importlib import import_module
from typing import NamedTuple

import typer
from typer import main as typer_main
from typer._click.core import Command as ClickCommand
from typer._click.core import Context as ClickContext
from typer.core import TyperCommand

from graphmem.cli.common import Commands, app, unwrapped
from graphmem.settings import names


class Entry(NamedTuple):
    """One command: its name, the module that defines it, its line in ``--help``."""

    name: str
    module: str
    help: str


_MEMORIES = "graphmem.cli.memories"
_SERVING = "graphmem.cli.serving"
_RELATIONS = "graphmem.cli.relations"
_LIFECYCLE = "graphmem.cli.lifecycle"
_RETRIEVAL = "graphmem.cli.retrieval"
_TRANSFER = "graphmem.cli.transfer"
_SHARING = "graphmem.cli.sharing"

COMMANDS: tuple[Entry, ...] = (
    Entry("serve", _SERVING, "Serve the GraphQL API (GraphiQL in the browser) until Ctrl-C."),
    Entry("remember", _MEMORIES, "Store one memory and show how it was filed."),
    Entry(
        "list",
        _MEMORIES,
        "List memories, newest first, one page at a time (with --as-of, those that held then).",
    ),
    Entry(
        "show",
        _MEMORIES,
        "Show one memory, why it scores what it scores, and what it is related to\n"
        "(with --as-of, as it stood then and the relations it had then).",
    ),
    Entry("unrelate", _RELATIONS, "Remove one relation, logged with who removed it and why."),
    Entry("relate", _RELATIONS, "Add (or update) a typed relation from one memory to another."),
    Entry(
        "pin",
        _MEMORIES,
        "Pin a memory: a person's confirmation (a candidate becomes active), and a\n"
        "pinned memory is never archived.",
    ),
    Entry("unpin", _MEMORIES, "Unpin a memory; once stale it may be archived again."),
    Entry(
        "feedback",
        _MEMORIES,
        "Rate a memory: 1 useful, 0 neutral, -1 wrong or unhelpful; it is rescored.",
    ),
    Entry(
        "forget",
        _MEMORIES,
        "Delete a memory and its relations for good (stale memories are archived\n"
        "instead, and can be restored).",
    ),
    Entry("schema", _SERVING, "Print the GraphQL schema (SDL)."),
    Entry("promote", _LIFECYCLE, "Run promotion for one or more sessions now."),
    Entry(
        "archive",
        _LIFECYCLE,
        "Archive stale, low-importance memories, or one memory by id (they stay\n"
        "restorable); what rests on an archived memory is marked for review.",
    ),
    Entry("restore", _LIFECYCLE, "Bring an archived memory back to the tier it came from."),
    Entry(
        "review",
        _LIFECYCLE,
        "Review candidates: interactively (approve / reject / skip), or with flags;\n"
        "--marked lists the memories marked for review, --confirm clears a mark.",
    ),
    Entry(
        "undo",
        _LIFECYCLE,
        "Take back a curation, logged with who and why; the review marks it left go\n"
        "with it. Refused, saying what blocks it, where a later change rests on it.",
    ),
    Entry("migrate", _LIFECYCLE, "Bring the graph up to the current schema; safe to run again."),
    Entry(
        "search",
        _RETRIEVAL,
        "Search memories by meaning, words and relations; every hit explains its score.",
    ),
    Entry(
        "context",
        _RETRIEVAL,
        "What an agent should know right now (knowledgeContext), each score explained.",
    ),
    Entry(
        "deliveries",
        "graphmem.cli.deliveries",
        "What knowledgeContext handed out, newest first: to a session or agent between\n"
        "two times, the deliveries that gave a memory, or (--changed) those whose memories\n"
        "changed since.",
    ),
    Entry(
        "backfill-embeddings",
        _RETRIEVAL,
        "Embed the memories that have no embedding yet (after enabling embeddings).",
    ),
    Entry(
        "failures",
        "graphmem.cli.failures",
        "Failure capsules: what failed, how often, what fixed it and the lesson learned.",
    ),
    Entry(
        "consolidate",
        "graphmem.cli.consolidate",
        "Consolidate related memories: one memory per group, the sources archived\n"
        "as consolidated (graphmem restore brings one back).",
    ),
    Entry(
        "inject",
        "graphmem.cli.inject",
        "Print the memories that bear on a coding agent's hook event (stdin); see --help.",
    ),
    Entry(
        "evaluate",
        "graphmem.cli.evaluate",
        "Check a project's memory graph for contradictions and report metrics.",
    ),
    Entry(
        "export",
        _TRANSFER,
        "Write a project: graphmem's JSONL holds all of it (memories with\n"
        "embeddings, relations, sessions, promotion and staging logs). With\n"
        f"{names.API_KEY}, only what that key may read.",
    ),
    Entry(
        "import",
        _TRANSFER,
        "Load a file into a project. Importing the same file again adds\n"
        "nothing: records already there are merged. Bad lines are listed with their\n"
        "line numbers and the exit status is 1; a graphmem file with a bad line then\n"
        "leaves nothing behind (what it created is removed again). With\n"
        f"{names.API_KEY}, the key must be an admin key of the project, bound to no agent.",
    ),
    Entry("share", _SHARING, "Let every agent of the project see a memory (logged)."),
    Entry("unshare", _SHARING, "Make a memory private to the agent that wrote it (logged)."),
    Entry(
        "copy",
        _SHARING,
        "Copy a memory into another project; the copy names its source, which stays as it is.",
    ),
    Entry("sharing-events", _SHARING, "Who shared, unshared or copied which memory, newest first."),
    Entry(
        "what-if",
        "graphmem.cli.whatif",
        "Show which memories would be promoted, kept or archived under other rules.",
    ),
    Entry(
        "mcp",
        "graphmem.cli.mcp",
        "Serve the agent tools over MCP until the client leaves (stdio) or Ctrl-C (http).",
    ),
    Entry("keys", "graphmem.cli.keys", "Create, list and revoke API keys."),
    Entry("project", "graphmem.cli.projects", "Show and change a project's settings."),
)
_BY_NAME = {entry.name: entry for entry in COMMANDS}


class LazyCommands(Commands):
    """The root group: a command's module is imported when the command is run
    (or its own ``--help`` shown); the root's ``--help`` lists ``COMMANDS``."""

    listing = False
    """While the root's help is written: commands not imported yet are shown
    from the table instead."""

    def list_commands(self, ctx: ClickContext) -> list[str]:
        named = [entry.name for entry in COMMANDS]
        return named + [name for name in super().list_commands(ctx) if name not in _BY_NAME]

    def get_command(self, ctx: ClickContext, cmd_name: str) -> ClickCommand | None:
        entry = _BY_NAME.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            if self.listing:
                return TyperCommand(cmd_name, help=unwrapped(entry.help))
            self.commands[cmd_name] = loaded(entry)
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: ClickContext, formatter: typer._click.HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


def loaded(entry: Entry) -> ClickCommand:
    """The command ``entry`` names, its module imported (which registers it on ``app``)."""
    import_module(entry.module)
    for group in app.registered_groups:
        if group.name == entry.name:
            return typer_main.get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands,
                rich_markup_mode=app.rich_markup_mode,
            )
    for info in app.registered_commands:
        if info.callback is not None and entry.name == (
            info.name or typer_main.get_command_name(info.callback.__name__)
        ):
            return typer_main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise LookupError(f"{entry.module} defines no command {entry.name!r}")


# The app is made in graphmem.cli.common, where every command module finds it;
# the group it becomes is this one.
app.info.cls = LazyCommands

__all__ = ["COMMANDS", "Entry", "app", "loaded"]
