"""Stored text on a terminal: control characters shown, never sent raw.

A memory, a failure's error output, a key's name or a line of an imported
file may hold control characters: an ANSI sequence that clears the screen or
colours what follows (``\\x1b[2J``, ``\\x1b[31m``), one that sets the window
title (``\\x1b]0;...\\x07``), a carriage return that writes over the line. Sent
raw, the terminal obeys them. ``escape_controls`` is the one rule every command
prints stored text by: each control character but tab and newline is written
as an escape a person can read, and the consoles apply it to everything they
print (``escaped``), so a command that forgets it still prints nothing raw.

C0 characters are written as Python writes them (``\\x1b``, ``\\r``); DEL and
the C1 characters as JSON writes them (``\\u009b``): JSON escapes C0 itself but
leaves DEL and C1 as they are, so these are the only ones that can reach a
``--json`` output raw, and written this way they leave it valid JSON with the
same value. A backslash is printed as it is.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Every control character (Unicode Cc) but tab and newline."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code < 0x7F else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with each control character but tab and newline escaped."""
    return _CONTROL.sub(_escape, text)


def shown(text: str, style: str = "") -> Text:
    """Stored text as a rich ``Text`` that shows its control characters.

    Escaped before rich sees it: rich drops some controls (BEL, backspace,
    carriage return) without a trace, and measures the others as zero columns
    wide, which would put a table's columns out of line once they are escaped.
    """
    return Text(escape_controls(text), style=style)


class _Escaped:
    """A renderable as its console renders it, with any control character left in
    its text escaped (rich's own control segments, cursor moves and the like,
    pass as they are)."""

    def __init__(self, renderable: ConsoleRenderable) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control or not _CONTROL.search(segment.text):
                yield segment
            else:
                yield Segment(escape_controls(segment.text), segment.style)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


class _EscapeControls(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Escaped(renderable) for renderable in renderables]


def escaped(console: Console) -> Console:
    """``console``, from now on printing every control character of the text it
    is given escaped: the net under ``shown``."""
    console.push_render_hook(_EscapeControls())
    return console
