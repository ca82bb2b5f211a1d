"""The review queue: which candidates a review covers, what a reviewer
weighs, and the logged staging steps and bulk actions.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphmem.domain.checks import MAX_INT64, MAX_TAGS, Identifier, InputModel, Tag
from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import Memory


class ReviewFilter(InputModel):
    """Which candidates a review (or a bulk action) covers."""

    session_id: Identifier | None = None
    memory_type: MemoryType | None = None
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    min_occurrences: int = Field(default=1, ge=1, le=MAX_INT64)
    older_than_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)


class ReviewItem(BaseModel):
    """A candidate and the evidence a reviewer weighs."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    occurrences: int
    feedback: float
    age_seconds: float
    near_duplicates: list[str] = Field(default_factory=list)
    """Ids of live memories whose text is close to this one's."""


class ReviewPage(BaseModel):
    items: list[ReviewItem]
    has_next: bool
    end_cursor: str | None = None


class StagingEvent(BaseModel):
    """One logged staging step of a memory: merged, activated, rejected, a review
    mark's steps, or an undo."""

    model_config = ConfigDict(frozen=True)

    id: str
    memory_id: str
    kind: str
    signal: str | None = None
    before: str | None = None
    after: str | None = None
    similarity: float | None = None
    merged_from: str | None = None
    by: str | None = None
    """Who undid a curation (kind ``undone``)."""
    at: float


class BulkReviewResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str
    dry_run: bool
    matched: list[str]
    """Candidates the filter selected."""
    applied: list[str]
    """Those the action changed (none in a dry run)."""
