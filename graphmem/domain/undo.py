"""Undoing a curation: what each one is, what its undo gives back, and when an
undo is refused because what came after it rests on it.

A curation is addressed by the memory it changed and its kind: the memory a
merge counted into (the latest merge into it not yet undone, or the memory a
person merged away, by its own id), the memory a supersede replaced, the
memory a consolidation wrote, the memory archived or rejected, the memory
marked for review. Undoing curations newest first gives back what was there
before them: ids, contents, tiers, statuses, counts and relations
(docs/undo.md). The audit log keeps both the curation and its undo.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from graphmem.domain.checks import choice


class Curation(StrEnum):
    """What an undo takes back."""

    MERGE = "merge"
    """A duplicate counted into a memory (by a write, exact or near) or a memory
    merged into another by a person: the merged part becomes a memory of its own."""
    SUPERSEDE = "supersede"
    """A SUPERSEDES relation, however made (``supersede``, ``relate``, a write judged
    an update): the older memory is current again."""
    CONSOLIDATION = "consolidation"
    """A consolidated memory: its sources come back, it is archived."""
    ARCHIVE = "archive"
    """An archive (by hand, stale, rotation): the memory returns to its tier."""
    REJECTION = "rejection"
    """A rejected candidate: a candidate in the review queue again."""
    MARK = "mark"
    """A review mark: it goes, logged as undone."""


def curation_of(value: Curation | str) -> Curation:
    """``value`` as a curation; anything else names the field and the choices."""
    return choice(Curation, value, "curation")


class UndoResult(BaseModel):
    """What an undo changed."""

    model_config = ConfigDict(frozen=True)

    curation: Curation
    memory_id: str
    """The memory the undo was asked of."""
    restored: list[str] = Field(default_factory=list)
    """Memories current again (an unmerged memory, a consolidation's sources,
    a restored or unsuperseded memory)."""
    created: list[str] = Field(default_factory=list)
    """Memories the undo wrote: a write merge's part, split off as its own memory."""
    archived: list[str] = Field(default_factory=list)
    """Memories the undo archived (a consolidated memory)."""


class Blocked(StrEnum):
    """Why an undo is refused: each says what blocks it and what to do."""

    EDITED = "{id} was edited after the merge; edit it back or forget the merged-in text by hand"
    SUPERSEDED_AGAIN = "{id} was itself superseded by {by} since; undo that supersede first"
    CHANGED_SINCE = "{id} changed since the consolidation ({what}); undo or restore that first"
    NOT_ARCHIVED = "{id} is not archived"
    NOT_REJECTED = "{id} is not a rejected candidate (it was restored or approved since)"
    NOT_MARKED = "{id} is not marked for review"
    NOT_MERGED = "no merge into {id} is left to undo"
    NOT_SUPERSEDED = "{id} is not superseded"
    NOT_CONSOLIDATED = "{id} is not a consolidated memory whose sources are still archived"
    COUNTS = "{id} counts fewer occurrences than the merge added; its counts were reset since"

    def say(self, **names: str) -> str:
        return self.value.format(**names)
