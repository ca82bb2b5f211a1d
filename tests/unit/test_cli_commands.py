"""The command line imports a command's module only when that command runs:
``graphmem --help`` lists every command from ``graphmem.cli.COMMANDS``, which
must say what the commands' own help says."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from importlib import import_module

import typer
from typer._click.core import Command
from typer.testing import CliRunner

from graphmem.cli import COMMANDS, app, loaded
from graphmem.cli.common import unwrapped

HEAVY = (
    "graphmem.api",
    "graphmem.store",
    "graphmem.services.retrieval.service",
    "graphmem.graphql",
    "onnxruntime",
    "strawberry",
    "neo4j",
    "falkordb",
    "redis",
    "numpy",
)
"""What the root's help must not import: the store, its drivers, the model, the schema."""


def imported_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_root_help_imports_no_command_module_and_nothing_heavy() -> None:
    modules = imported_after(
        "from typer.testing import CliRunner\n"
        "from graphmem.cli import app\n"
        "result = CliRunner().invoke(app, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'backfill-embeddings' in result.output\n"
    )
    loaded_heavy = [m for m in modules if m.startswith(HEAVY)]
    assert loaded_heavy == []
    command_modules = {entry.module for entry in COMMANDS}
    assert command_modules.isdisjoint(modules)


def test_running_a_command_imports_its_module_only() -> None:
    modules = imported_after(
        "from typer.testing import CliRunner\n"
        "from graphmem.cli import app\n"
        "result = CliRunner().invoke(app, ['what-if', '--help'])\n"
        "assert result.exit_code == 0, result.output\n"
    )
    assert "graphmem.cli.whatif" in modules
    assert {"graphmem.cli.memories", "graphmem.cli.retrieval"}.isdisjoint(modules)


def first_paragraph(command: Command) -> str:
    """What the root's help shows of a command (typer's rule: its first paragraph)."""
    return inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0].strip()


def test_every_entry_says_what_the_command_s_own_help_says() -> None:
    for entry in COMMANDS:
        assert first_paragraph(loaded(entry)) == entry.help, entry.name


def test_the_table_names_every_command_once() -> None:
    for module in {entry.module for entry in COMMANDS}:
        import_module(module)
    names = [entry.name for entry in COMMANDS]
    assert len(names) == len(set(names))
    registered = {
        info.name or typer.main.get_command_name(info.callback.__name__)
        for info in app.registered_commands
        if info.callback is not None
    } | {group.name for group in app.registered_groups}
    assert registered == set(names)


def test_the_help_lists_the_commands_in_table_order() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [line.strip("│ ").split(" ", 1)[0] for line in result.output.splitlines()]
    listed = [name for name in rows if name in {entry.name for entry in COMMANDS}]
    assert listed == [entry.name for entry in COMMANDS]


def test_help_lines_break_only_where_the_terminal_ends() -> None:
    """A docstring's line breaks are the source's: on a wide terminal a sentence
    of the root's listing and of a command's own help is one line."""
    listing = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    own = CliRunner().invoke(app, ["import", "--help"], env={"COLUMNS": "200"}).output
    assert "(a candidate becomes active), and a pinned memory is never archived." in listing
    assert "Importing the same file again adds nothing: records already there" in own


def test_unwrapping_keeps_paragraphs_lists_and_click_s_verbatim_blocks() -> None:
    text = "One sentence\nwrapped.\n\nItems:\n- first\n- second\n\n\b\nkept\nas is"
    assert (
        unwrapped(text) == "One sentence wrapped.\n\nItems:\n- first\n- second\n\n\b\nkept\nas is"
    )
