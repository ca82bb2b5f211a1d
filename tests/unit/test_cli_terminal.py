"""The one rule the command line prints stored text by: control characters escaped."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from graphmem.cli.terminal import escape_controls, escaped, shown

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.mark.parametrize(
    ("stored", "printed"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("over\rwrite", "over\\rwrite"),
        ("nul\x00 bs\x08 vt\x0b ff\x0c", "nul\\x00 bs\\x08 vt\\x0b ff\\x0c"),
        ("del\x7f c1\x9b31m nel\x85", "del\\u007f c1\\u009b31m nel\\u0085"),
        ("tab\tnewline\n", "tab\tnewline\n"),
        ("back\\slash é 漢字 \u202e", "back\\slash é 漢字 \u202e"),
    ],
)
def test_escape_controls(stored: str, printed: str) -> None:
    assert escape_controls(stored) == printed
    assert not RAW.search(printed)
    assert shown(stored).plain == printed


def console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return escaped(Console(file=buffer, width=80, force_terminal=True)), buffer


def test_the_console_escapes_what_a_command_forgot() -> None:
    out, buffer = console()
    table = Table()
    table.add_column("name")
    table.add_row("ci \x1b]0;title\x07")  # a str cell, as rich's markup reads it
    out.print(table)
    out.print(Text("plain \x1b[2J"), style="red")  # styled: rich's own escapes still apply
    printed = buffer.getvalue()
    assert "ci \\x1b]0;title" in printed and "plain \\x1b[2J" in printed
    # The only escapes left are rich's own colours (ESC [ ... m) around the text.
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", printed)


def test_json_printed_through_the_console_is_exact_json() -> None:
    out, buffer = console()
    value = {"content": "ansi \x1b[31m c1 \x9b del \x7f é"}
    out.print_json(json.dumps(value), highlight=False)
    printed = buffer.getvalue()
    assert not RAW.search(printed)
    assert json.loads(printed) == value
