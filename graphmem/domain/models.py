"""Domain models: what a memory is, what a caller writes and asks for, and
what a write did.

Pure data with validation and no I/O. Inputs are validated here so every
surface (Python, GraphQL, CLI) rejects the same bad values with the same
message naming the field and the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphmem.domain.checks import (
    MAX_CONTENT_CHARS,
    MAX_EVIDENCE_ITEMS,
    MAX_TAGS,
    Epoch,
    Evidence,
    Identifier,
    InputModel,
    Rationale,
    Tag,
    Text,
    no_controls,
)
from graphmem.domain.clock import showable
from graphmem.domain.dependencies import Change, ReviewMark
from graphmem.domain.kinds import (
    MemoryType,
    RelationType,
    SelfAssessment,
    Source,
    Status,
    SuggestedBy,
    Tier,
    Visibility,
)


class MemoryInput(InputModel):
    """What a caller supplies to ``remember``."""

    content: Text = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    memory_type: MemoryType | None = None
    confidence: float = Field(default=0.7, ge=0.0, le=1.0, allow_inf_nan=False)
    source: Source = Source.AGENT
    suggested_by: SuggestedBy = SuggestedBy.IMPLICIT
    self_assessment: SelfAssessment | None = None
    tier: Tier = Tier.WORKING
    pinned: bool = False
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    rationale: Rationale | None = None
    evidence: list[Evidence] = Field(default_factory=list, max_length=MAX_EVIDENCE_ITEMS)
    session_id: Identifier | None = None
    agent_id: Identifier | None = None
    visibility: Visibility | None = None
    """``private`` to its agent or ``shared`` with the project; the project's
    default when absent (``graphmem.services.sharing.default_visibility``)."""
    occurred_at: Epoch | None = None
    """When what the memory records happened (epoch seconds, or a datetime or
    ISO 8601 text); the time of the write when absent. Recency and staleness
    count from it; no later than a few minutes past the server's clock."""
    valid_from: Epoch | None = None
    """When what it records began to hold; ``occurred_at`` (or the write) when
    absent. No later than a few minutes past the server's clock."""
    valid_to: Epoch | None = None
    """When it stopped holding ("the key was rotated on 3 May"); open when absent.
    A newer memory that supersedes it closes it too."""

    _content_without_controls = field_validator("content", "rationale")(no_controls)

    @field_validator("tier")
    @classmethod
    def _not_archived(cls, tier: Tier) -> Tier:
        if tier is Tier.ARCHIVED:
            raise ValueError("a new memory cannot start archived")
        return tier

    @field_validator("source")
    @classmethod
    def _not_consolidated(cls, source: Source) -> Source:
        if source is Source.CONSOLIDATED:
            raise ValueError(
                "only consolidation writes consolidated memories (it links their sources)"
            )
        return source

    @field_validator("tags")
    @classmethod
    def _unique_tags(cls, tags: list[str]) -> list[str]:
        return list(dict.fromkeys(tags))


class MemoryUpdate(InputModel):
    """Fields a caller may change; ``None`` leaves a field as it is."""

    content: Text | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)
    memory_type: MemoryType | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    self_assessment: SelfAssessment | None = None
    tags: list[Tag] | None = Field(default=None, max_length=MAX_TAGS)
    rationale: Rationale | None = None
    evidence: list[Evidence] | None = Field(default=None, max_length=MAX_EVIDENCE_ITEMS)
    valid_from: Epoch | None = None
    """When what it records began to hold."""
    valid_to: Epoch | None = None
    """When it stopped holding: an end given this way stays when a SUPERSEDES
    relation into the memory is later removed."""

    _content_without_controls = field_validator("content", "rationale")(no_controls)

    @field_validator("tags")
    @classmethod
    def _unique_tags(cls, tags: list[str] | None) -> list[str] | None:
        return None if tags is None else list(dict.fromkeys(tags))


class MemoryFilter(InputModel):
    tier: Tier | None = None
    status: Status | None = None
    memory_type: MemoryType | None = None
    session_id: Identifier | None = None
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    pinned: bool | None = None
    include_archived: bool = False
    include_candidates: bool = True
    """Listing shows candidates unless told not to; hiding them deletes nothing."""


class Memory(BaseModel):
    """A stored memory item, as every backend returns it."""

    model_config = ConfigDict(frozen=True)

    id: str
    project_id: str
    session_id: str
    content: str
    memory_type: MemoryType | None = None
    tier: Tier = Tier.WORKING
    status: Status = Status.ACTIVE
    confidence: float = 0.7
    importance: float = 0.0
    access_count: int = 0
    """Explicit uses (recordAccess); what access frequency and importance read."""
    retrieval_count: int = 0
    """How often knowledgeContext returned it: counted apart, since being
    retrieved is not being used."""
    occurrence_count: int = 1
    feedback: float = 0.0
    feedback_count: int = 0
    pinned: bool = False
    source: Source = Source.AGENT
    suggested_by: SuggestedBy = SuggestedBy.IMPLICIT
    self_assessment: SelfAssessment | None = None
    tags: list[str] = Field(default_factory=list)
    rationale: str | None = None
    evidence: list[str] = Field(default_factory=list)
    agent_id: str | None = None
    visibility: Visibility = Visibility.SHARED
    """Stored before graphmem kept it: shared, as every memory was."""
    superseded_by: str | None = None
    created_at: float
    occurred_at: float | None = None
    """When what it records happened; ``created_at`` for memories written before
    graphmem kept it."""
    updated_at: float
    last_accessed_at: float | None = None
    last_retrieved_at: float | None = None
    promoted_at: float | None = None
    archived_at: float | None = None
    archived_from: Tier | None = None
    archive_reason: str | None = None
    activated_at: float | None = None
    """When a candidate became active."""
    last_seen: float | None = None
    """When a duplicate of this memory was last written (and merged into it)."""
    merged_into: str | None = None
    evaluator_relevance: float | None = None
    """Relevance evidence from the consistency evaluator, in [0, 1]."""
    variants: list[str] = Field(default_factory=list)
    """Other wordings of this memory that near-duplicate writes merged into it."""
    conflicts_with: str | None = None
    """The memory this one may contradict: it was written as a near match that
    differs in meaning, and waits in the review queue as a candidate."""
    conflict_reason: str | None = None
    """How it differs from ``conflicts_with`` (negation, number, entity, ...)."""
    valid_from: float | None = None
    """When what it records began to hold; ``occurred`` for memories written
    before graphmem kept it (see ``valid_since``)."""
    valid_to: float | None = None
    """When it stopped holding: given, or the start of the memory that superseded it."""
    copied_from: str | None = None
    """The memory this one is a copy of, in ``copied_from_project``."""
    copied_from_project: str | None = None
    copied_at: float | None = None
    copied_by: str | None = None
    """Who made the copy: an agent id, or ``admin`` for a caller bound to none."""
    review_change: Change | None = None
    """Set while the memory needs review: how a memory it rests on changed
    (``graphmem.domain.dependencies``); read it as ``review_mark``."""
    review_cause: str | None = None
    review_by: str | None = None
    review_path: list[RelationType] = Field(default_factory=list)
    review_marked_at: float | None = None

    @property
    def review_mark(self) -> ReviewMark | None:
        """Why it needs review, or ``None``: nothing it rests on has changed."""
        if self.review_change is None:
            return None
        return ReviewMark(
            change=self.review_change,
            cause_id=self.review_cause,
            by_id=self.review_by,
            path=self.review_path,
            marked_at=self.review_marked_at or self.updated_at,
        )

    @property
    def occurred(self) -> float:
        """When what it records happened (its write, when not told otherwise)."""
        return self.occurred_at if self.occurred_at is not None else self.created_at

    @property
    def valid_since(self) -> float:
        """When what it records began to hold (when it happened, unless told otherwise)."""
        return self.valid_from if self.valid_from is not None else self.occurred

    def held_at(self, at: float) -> bool:
        """Whether it held at ``at``: valid from ``valid_since`` up to, not
        including, ``valid_to``."""
        return self.valid_since <= at and (self.valid_to is None or at < self.valid_to)

    @property
    def last_used_at(self) -> float:
        """When the memory was last touched: accessed, or else when it happened."""
        return self.last_accessed_at if self.last_accessed_at is not None else self.occurred

    def unshowable_times(self) -> list[str]:
        """The time fields whose stored value no surface can show as a date
        (outside ``clock.SHOWN_RANGE``, or NaN): no write takes one, but a row
        written by raw Cypher or an older version may hold one. Reads show such
        a time as the nearest bound and say so; ``graphmem migrate`` repairs it."""
        return [
            name
            for name in TIME_FIELDS
            if (value := getattr(self, name)) is not None and not showable(value)
        ]


TIME_FIELDS: tuple[str, ...] = tuple(
    name
    for name in Memory.model_fields
    if name.endswith("_at") or name in ("last_seen", "valid_from", "valid_to")
)
"""A memory's times (UTC epoch seconds), as stored."""


def memory_from_fields(fields: Mapping[str, Any]) -> Memory:
    """A memory from a store row.

    Absent properties come back as nulls; dropping them lets the model's
    defaults stand in, so memories written by older versions still read.
    """
    return Memory.model_validate({k: v for k, v in fields.items() if v is not None})


class Page(BaseModel):
    """One page of a cursor-paginated listing."""

    items: list[Memory]
    has_next: bool
    end_cursor: str | None = None
    start_cursor: str | None = None


class WriteResult(StrEnum):
    """Which of the write's outcomes happened to one remembered item."""

    CREATED = "created"
    """A new memory, unlike any live one."""
    MERGED_EXACT = "merged_exact"
    """The same normalised text as a live memory: counted into it."""
    MERGED_NEAR = "merged_near"
    """A restatement of a live memory: counted into it, its wording kept as a variant."""
    SUPERSEDED = "superseded"
    """A new value for a fact the same source stated: a new memory that supersedes
    the old one (kept, and restorable by removing the SUPERSEDES relation)."""
    FLAGGED_CONFLICT = "flagged_conflict"
    """A near match that says something else (negation, value, entity): a new
    candidate in the review queue, beside the memory it may contradict."""


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What ``remember`` did with one item (a dataclass: bulk writes make one per item)."""

    id: str
    created: bool
    """``False``: the item was a duplicate and merged into memory ``id``."""
    match: str | None = None
    """How a merged item matched: ``exact`` or ``near``."""
    result: WriteResult = WriteResult.CREATED
    related_id: str | None = None
    """The older memory a new one superseded or may contradict."""
    reason: str | None = None
    """Why a near match was judged so: the difference found, or the similarity."""
