"""What an export wrote and what an import did with each line of its file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from graphmem.domain.wording import plural

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


NOUNS = {
    "project": ("project", "projects"),
    "session": ("session", "sessions"),
    "memory": ("memory", "memories"),
    "relation": ("relation", "relations"),
    "promotion_run": ("promotion run", "promotion runs"),
    "promotion_event": ("promotion event", "promotion events"),
    "staging_event": ("staging event", "staging events"),
    "archival_event": ("archival event", "archival events"),
    "failure_capsule": ("failure capsule", "failure capsules"),
    "delivery": ("delivery", "deliveries"),
}
"""How a report names each kind of record, one and many."""


def listed(counts: Mapping[str, int]) -> str:
    """``counts`` as words (``1 session, 3 memories``); ``nothing`` when all are 0."""
    return ", ".join(plural(n, *NOUNS[k]) for k, n in counts.items() if n) or "nothing"
