"""What an export wrote and what an import did with each line of its file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

Progress = Callable[[int], None]
"""Told how many more memories an export has written (a progress bar's ``advance``)."""


@dataclass
class TransferCounts:
    """How many records of each kind an export wrote."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, n: int) -> None:
        self.counts[kind] += n


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line an import left out, and why: a person fixes the file from this."""

    line: int
    reason: str


@dataclass
class ImportReport:
    """What an import did, line by line.

    ``created`` records were new to the project, ``merged`` ones matched
    something already there (so importing the same file twice creates
    nothing the second time), and every skipped line is listed with its
    number and the reason. An import with a bad line creates nothing: a
    graphmem import deletes what it had created again and counts it in
    ``rolled_back``; a Sky import checks every line first and is ``refused``.
    ``warnings`` concern the file as a whole, such as a file that ends before
    its closing line.
    """

    project_id: str
    created: Counter[str] = field(default_factory=Counter)
    merged: Counter[str] = field(default_factory=Counter)
    skipped: list[SkippedLine] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rolled_back: Counter[str] = field(default_factory=Counter)
    """What the import created and then deleted again because a line was bad."""
    refused: bool = False
    """A bad line stopped the import before it wrote anything (Sky files, which
    are checked whole first)."""

    def skip(self, line: int, reason: str) -> None:
        self.skipped.append(SkippedLine(line, reason))

    @property
    def complete(self) -> bool:
        """Every line went in and the file was whole."""
        return not self.skipped and not self.warnings


def refusal(exc: Exception) -> str:
    """Why the store refused a record, on one line: the server's own message (a
    Neo4j error's, without the code its text adds; a FalkorDB error's text)."""
    text = str(getattr(exc, "message", None) or exc).strip()
    return f"the store refused it: {text.splitlines()[0] if text else type(exc).__name__}"
