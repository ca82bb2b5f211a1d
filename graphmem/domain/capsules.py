"""Failure capsules, as pure domain: what a failure report holds, how the same
failure is recognised when it comes back, and the lesson derived from it.

A capsule records one failure of an agent's step (what it attempted, the tool
or command, the error, the files and the memories it had in context, and what
fixed it when that is known). The same failure seen again is a recurrence of
the capsule, never a second one: two reports are the same failure when their
tool and their error, with the parts that change from run to run taken out
(numbers, hex ids, paths, timestamps), are equal. The lesson is
a ``lesson_learned`` memory derived from the capsule; it starts as a candidate
and earns activation under the staging rules (recurrence, a recorded fix).
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
)

from graphmem.domain.checks import MAX_TAGS, Identifier, Tag, Text, no_nul
from graphmem.domain.kinds import Visibility

MAX_ERROR_CHARS = 8_000
MAX_ATTEMPTED_CHARS = 2_000
MAX_COMMAND_CHARS = 4_000
MAX_TOOL_CHARS = 128
MAX_FIX_CHARS = 4_000
MAX_FILES = 64
MAX_FILE_CHARS = 1_024
MAX_CONTEXT_MEMORIES = 50
MAX_LIST = 200
ERROR_HEAD_CHARS = 300
"""How much of the error's telling line a lesson quotes."""
SIGNATURE_CHARS = 2_000
"""How much of the normalised error decides what counts as the same failure."""

FilePath = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_FILE_CHARS),
    AfterValidator(no_nul),
]


class FailureReport(BaseModel):
    """What an agent or a hook reports about a failure (validated on every surface)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)

    error: Text = Field(min_length=1, max_length=MAX_ERROR_CHARS)
    """The error text as the tool gave it; required."""
    attempted: Text | None = Field(default=None, max_length=MAX_ATTEMPTED_CHARS)
    """What the agent was trying to do."""
    tool: Text | None = Field(default=None, max_length=MAX_TOOL_CHARS)
    """The tool that failed (``Bash``, ``Edit``, ``pytest``)."""
    command: Text | None = Field(default=None, max_length=MAX_COMMAND_CHARS)
    files: list[FilePath] = Field(default_factory=list, max_length=MAX_FILES)
    context_memory_ids: list[Identifier] = Field(
        default_factory=list, max_length=MAX_CONTEXT_MEMORIES
    )
    """Memories that were in the agent's context when it failed."""
    fix: Text | None = Field(default=None, max_length=MAX_FIX_CHARS)
    """What fixed it, when known; may come with a later report of the same failure."""
    session_id: Identifier | None = None
    agent_id: Identifier | None = None
    visibility: Visibility | None = None
    """Who of the project's agents may read the capsule and its lesson, as for a
    memory: PRIVATE to its agent or SHARED; the project's default when absent
    (always SHARED without an agent)."""
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)

    @field_validator("files", "context_memory_ids", "tags")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        return list(dict.fromkeys(values))

    @field_validator("error")
    @classmethod
    def _has_words(cls, error: str) -> str:
        if not _WORD.search(error):
            raise ValueError("must say something (it holds no letters or digits)")
        return error

    @field_validator("attempted", "tool", "command", "fix")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value or None


class FailureCapsule(BaseModel):
    """A stored failure and its recurrences."""

    model_config = ConfigDict(frozen=True)

    id: str
    project_id: str
    signature: str
    error: str
    """The error of the latest report."""
    attempted: str | None = None
    tool: str | None = None
    command: str | None = None
    files: list[str] = Field(default_factory=list)
    fix: str | None = None
    occurrence_count: int = 1
    session_ids: list[str] = Field(default_factory=list)
    context_memory_ids: list[str] = Field(default_factory=list)
    lesson_id: str | None = None
    first_seen_at: float
    last_seen_at: float
    fixed_at: float | None = None
    agent_id: str | None = None
    """The agent of its first report."""
    visibility: Visibility = Visibility.SHARED
    """Who may read it (and only if they may read its lesson too); a capsule
    stored before capsules kept visibility is shared."""


class FailureOutcome(BaseModel):
    """What recording a failure did."""

    model_config = ConfigDict(frozen=True)

    capsule: FailureCapsule
    created: bool
    """``False``: a recurrence, counted on the existing capsule."""
    lesson_id: str | None
    lesson_status: str | None = None
    """The lesson's status after this report (``candidate`` or ``active``)."""


_VOLATILE = [
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:z|[+-]\d{2}:?\d{2})?"),
        "<time>",
    ),
    (re.compile(r"(?:[a-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+"), "<path>"),
    (re.compile(r"\b0x[0-9a-f]+\b|\b[0-9a-f]{8,}\b"), "<hex>"),
    # Numbers standing alone only: digits in a name (column_2, python3.11) name it.
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)*\b"), "<n>"),
]
_WORD = re.compile(r"\w")
_TELLING = re.compile(r"error|exception|fail|fatal|denied|not found|refused|invalid|cannot|unable")


def normalised_error(error: str) -> str:
    """The error with what changes between runs (times, paths, hex ids, numbers)
    replaced by placeholders, lower case, spaces collapsed. Quoted names stay:
    a missing module ``requests`` and a missing ``numpy`` are two failures."""
    text = error.lower()
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return " ".join(text.split())[:SIGNATURE_CHARS]


def signature(report: FailureReport) -> str:
    """What makes two reports the same failure: the tool and the normalised error,
    and for a private report its agent. Each agent's private failures are its own
    capsules, so a report never counts on (or reads) a capsule it may not see;
    a shared failure's signature is the same as before capsules kept visibility."""
    tool = (report.tool or "").strip().lower()
    digest = hashlib.blake2b(digest_size=16)
    digest.update(tool.encode())
    digest.update(b"\x00")
    digest.update(normalised_error(report.error).encode())
    if report.visibility is Visibility.PRIVATE and report.agent_id is not None:
        digest.update(b"\x00private\x00")
        digest.update(report.agent_id.encode())
    return digest.hexdigest()


def error_head(error: str) -> str:
    """The line of an error that says what went wrong: the last one naming an
    error (a traceback ends with it), else the first non-empty line."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    telling = [line for line in lines if _TELLING.search(line.lower())]
    head = telling[-1] if telling else lines[0]
    return head if len(head) <= ERROR_HEAD_CHARS else head[: ERROR_HEAD_CHARS - 1] + "…"


def lesson_content(report: FailureReport) -> str:
    """The lesson a capsule teaches, in words retrieval can match a later task on:
    what was attempted, with which tool or command, what went wrong, and the fix."""
    step = report.attempted or (f"running {report.command}" if report.command else None)
    where = f" ({report.tool})" if report.tool else ""
    subject = f"{step}{where}" if step else (report.tool or "A step")
    text = f"Failure seen: {subject} failed with: {error_head(report.error)}"
    if report.command and report.attempted:
        text += f" Command: {report.command[:500]}"
    if report.fix:
        text += f" Fix: {report.fix}"
    return _TERMINAL_CODES.sub("", text)[:9_000]


_TERMINAL_CODES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC: window titles, links
    r"|\x1b[@-_]?"  # any other escape
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # any other control character
)
"""What a tool's output holds for a terminal (its colours above all), which a
lesson leaves out: a memory holds no control characters but tab, newline and
carriage return (graphmem.domain.checks)."""


def fix_evidence(fix: str) -> str:
    """How a fix recorded after the lesson was written is kept on the lesson."""
    return f"fix: {fix}"[:2_000]
