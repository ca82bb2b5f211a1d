"""What a judgement says, and the numbers it is made with: a reason names the
kind of difference that decided it, in words a person reads."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Verdict(StrEnum):
    MERGE = "merge"
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"
    DISTINCT = "distinct"


class Difference(StrEnum):
    """What kind of difference decided a verdict other than ``MERGE``."""

    NONE = "none"
    SIMILARITY = "similarity"
    UNREADABLE = "unreadable"
    SPEAKER = "speaker"
    EVENT = "event"
    NEGATION = "negation"
    POLARITY = "polarity"
    NUMBER = "number"
    VERSION = "version"
    DATE = "date"
    IDENTIFIER = "identifier"
    UNIT = "unit"
    ENTITY = "entity"
    TERM = "term"
    ADDED = "added"
    """One text says all the other says, and more: kept apart on write (the
    addition is what was said), grouped by consolidation."""
    ORDER = "order"
    CORRECTION = "correction"
    """The new text names what it replaces ("switched from Y to X", "X instead
    of Y", "no longer Y"): ``graphmem.domain.restatement.corrections``."""
    QUALIFIER = "qualifier"
    """A closed-class word differs where the rest agrees: a quantifier, modal,
    direction, person, tense or restriction ("must"/"may", "all"/"some",
    "up"/"down", "her"/"his", "was"/"is", "only")."""


RETIRED = frozenset({"merge_overlap", "paraphrase_similarity", "max_term_swap"})


class RestatementThresholds(BaseModel):
    """The rule's numbers; ``retention_rules.yaml`` holds them under ``restatement``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        """Rules files written for the word-overlap judge still load: its numbers
        (``merge_overlap``, ``paraphrase_similarity``, ``max_term_swap``) decide
        nothing now, and are dropped with a warning rather than refused."""
        if isinstance(data, dict) and (found := RETIRED.intersection(data)):
            warnings.warn(
                f"restatement: {', '.join(sorted(found))} no longer decide anything and "
                "are ignored (a merge now needs every word matched)",
                DeprecationWarning,
                stacklevel=2,
            )
            data = {k: v for k, v in data.items() if k not in RETIRED}
        return data

    candidate_similarity: float = Field(default=0.78, ge=0.0, le=1.0)
    """Cosine at or above which a near match is judged at all; below it: ``DISTINCT``."""
    correction_similarity: float = Field(default=0.55, ge=0.0, le=1.0)
    """Cosine from which a near match below ``candidate_similarity`` is still
    read, for a new text that names the value it replaces only ("switched from
    Y to X", "X instead of Y", "no longer Y"; ``corrections.cued``), and only
    as a correction of it, never a merge: a correction says more than what it
    corrects, and another name moves the embedding far."""
    event_window_seconds: float = Field(default=60.0, ge=0.0)
    """Two events with the same text merge only when they happened at most this
    far apart (the same turn written twice); further apart, both happened."""


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    difference: Difference
    reason: str
    """One line a person reads in the review queue or the write report."""


DEFAULT_THRESHOLDS = RestatementThresholds()


def show(items: list[str]) -> str:
    """The words of a reason; "(none)" keeps an empty side visible."""
    return ", ".join(items) if items else "(none)"
