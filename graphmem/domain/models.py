"""Domain models: what a memory, a session and a relation are.

Pure data with validation and no I/O. Inputs are validated here so every
surface (Python, GraphQL, CLI) rejects the same bad values with the same
message naming the field and the limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from graphmem.domain import errors
from graphmem.domain.errors import InvalidInputError

# Documented input limits (docs/graphql.md, "Limits").
MAX_CONTENT_CHARS = 10_000
MAX_RATIONALE_CHARS = 4_000
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_EVIDENCE_ITEMS = 32
MAX_EVIDENCE_CHARS = 2_000
MAX_PAGE_SIZE = 200
MAX_BATCH_SIZE = 5_000
MAX_INT64 = 2**63 - 1
"""The largest integer the graph databases store or compare (64-bit signed)."""
DEFAULT_PROJECT = "default"
DEFAULT_SESSION = "default"
MAX_FUTURE_SKEW_SECONDS = 300.0
"""How far ahead of the server's clock an ``occurred_at`` may be (clocks drift)."""
MILLISECOND_EPOCHS = 1e11
"""Epoch numbers above this are milliseconds (10^11 seconds is the year 5138)."""


def epoch_seconds(value: Any) -> float:
    """A time (a ``datetime``, ISO 8601 text, or epoch seconds or milliseconds)
    as epoch seconds, to the millisecond graphmem stores times at. A time
    without a zone is UTC."""
    if isinstance(value, bool):
        raise ValueError("must be an ISO 8601 time or epoch seconds")
    if isinstance(value, int | float):
        seconds = float(value)
        if not math.isfinite(seconds):
            raise ValueError("must be a finite number")
        if abs(seconds) >= MILLISECOND_EPOCHS:
            seconds /= 1000.0
        return round(seconds, 3)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError("must be an ISO 8601 time or epoch seconds") from None
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return round(moment.timestamp(), 3)
    raise ValueError("must be an ISO 8601 time or epoch seconds")


Epoch = Annotated[float, BeforeValidator(epoch_seconds)]
"""A time as epoch seconds, given as a ``datetime``, ISO 8601 text or a number."""

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")]
"""Caller-chosen ids (projects, sessions, agents): 1-128 safe characters."""
_identifier = TypeAdapter(Identifier)


def check_identifier(field: str, value: str) -> str:
    """A caller-chosen id passed outside an input model (a project, a new session)."""
    try:
        return _identifier.validate_python(value)
    except ValidationError:
        raise InvalidInputError(
            f"{field}: must be 1-128 characters of letters, digits and . _ : @ -", field=field
        ) from None


def _no_nul(text: str) -> str:
    # The graph databases' query parsers end a string at a NUL character, and
    # an unpaired surrogate has no UTF-8 form to send them.
    if "\x00" in text:
        raise ValueError("must not contain NUL characters")
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise ValueError("must not contain unpaired surrogates") from None
    return text


_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Control characters (C0, DEL, C1) but tab, newline and carriage return; NUL has
its own rule."""


def _no_controls(text: str | None) -> str | None:
    # A memory's text is what agents are given and terminals print: a control
    # character in it (an ANSI sequence, a bell) is never content, and printed raw
    # it drives the terminal of whoever reads it.
    found = _CONTROL.search(text) if text is not None else None
    if found is not None:
        raise ValueError(
            "must not contain control characters other than tab, newline and carriage "
            f"return (found {found.group()!r} at character {found.start() + 1})"
        )
    return text


Text = Annotated[str, AfterValidator(_no_nul)]
_text = TypeAdapter(Text)


def check_text(field: str, value: Any, *, max_chars: int) -> str:
    """Free text passed outside an input model (a relation's rationale), held to
    the same rules as the models' text fields."""
    try:
        text = _text.validate_python(value)
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda _: field) from None
    if len(text) > max_chars:
        raise InvalidInputError(f"{field}: at most {max_chars} characters", field=field)
    return text


# Length limits go on the string itself, ahead of the NUL check: placed after it,
# pydantic reports a too-long string in "items".
Tag = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TAG_CHARS),
    AfterValidator(_no_nul),
]
Evidence = Annotated[str, StringConstraints(max_length=MAX_EVIDENCE_CHARS), AfterValidator(_no_nul)]
Rationale = Annotated[
    str, StringConstraints(max_length=MAX_RATIONALE_CHARS), AfterValidator(_no_nul)
]


class AnyCaseEnum(StrEnum):
    """An enum that takes its values and names in any case: ``Decision``,
    ``DECISION`` and ``decision`` are one type, on the command line and in
    Python alike, as GraphQL spells them ``DECISION``."""

    @classmethod
    def _missing_(cls, value: object) -> AnyCaseEnum | None:
        if isinstance(value, str):
            folded = value.casefold()
            for member in cls:
                if folded in (member.value.casefold(), member.name.casefold()):
                    return member
        return None


class MemoryType(AnyCaseEnum):
    DECISION = "decision"
    ARCHITECTURAL_DECISION = "architectural_decision"
    CONVENTION = "convention"
    CODING_STANDARD = "coding_standard"
    LESSON_LEARNED = "lesson_learned"
    RISK = "risk"
    DISCOVERY = "discovery"
    FACT = "fact"
    HYPOTHESIS = "hypothesis"
    ASSUMPTION = "assumption"
    PREFERENCE = "preference"
    GOAL = "goal"
    ERROR_PATTERN = "error_pattern"
    RULE = "rule"
    EVENT = "event"
    """Something that happened or was said: a conversation turn, an observation
    (its ``occurred_at`` says when)."""


class Tier(AnyCaseEnum):
    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    ARCHIVED = "archived"


class Status(AnyCaseEnum):
    CANDIDATE = "candidate"
    ACTIVE = "active"


class RelationType(AnyCaseEnum):
    """The relation types between memories: the one list every surface, the
    explorer's palette and the Cypher statements that name them follow
    (tests/unit/test_relation_types.py compares them all with it)."""

    CONSTRAINS = "CONSTRAINS"
    ENABLES = "ENABLES"
    SUPERSEDES = "SUPERSEDES"
    RELATED_TO = "RELATED_TO"

    @property
    def statement(self) -> str:
        """The named statement that writes this relation: Cypher takes no
        relationship type as a parameter, so each type has its own."""
        return f"relate_{self.value.lower()}"


class Source(AnyCaseEnum):
    MANUAL = "manual"
    AGENT = "agent"
    AUTO_EXTRACTED = "auto_extracted"
    IMPORT = "import"
    CONSOLIDATED = "consolidated"
    """Written by consolidation from a group of memories it supersedes (never by a caller)."""


class SuggestedBy(AnyCaseEnum):
    IMPLICIT = "implicit"
    AGENT = "agent"


class SelfAssessment(AnyCaseEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Visibility(AnyCaseEnum):
    """Who of a project's agents sees a memory. A memory stored before graphmem
    kept visibility reads as shared, and a memory without an agent is always
    shared: it has no one to be private to."""

    PRIVATE = "private"
    """Only the agent that wrote it (and callers not bound to an agent)."""
    SHARED = "shared"
    """Every agent of the project."""


class SessionState(AnyCaseEnum):
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


def initial_status(source: Source) -> Status:
    """Auto-extracted items must earn trust; everything else starts trusted."""
    return Status.CANDIDATE if source is Source.AUTO_EXTRACTED else Status.ACTIVE


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class MemoryInput(_Input):
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

    _content_without_controls = field_validator("content", "rationale")(_no_controls)

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


class MemoryUpdate(_Input):
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

    _content_without_controls = field_validator("content", "rationale")(_no_controls)

    @field_validator("tags")
    @classmethod
    def _unique_tags(cls, tags: list[str] | None) -> list[str] | None:
        return None if tags is None else list(dict.fromkeys(tags))


def check_validity(valid_from: float, valid_to: float | None, *, field: str = "valid_to") -> None:
    """A validity never ends before it begins (an end equal to the start is an
    empty validity: the memory never held)."""
    if valid_to is not None and valid_to < valid_from:
        raise InvalidInputError(
            f"{field}: the validity would end ({_iso(valid_to)}) before it begins "
            f"({_iso(valid_from)}); valid_to must not be earlier than valid_from",
            field=field,
        )


def check_not_future(at: float, now: float, *, field: str) -> None:
    """A time no later than a small clock skew past ``now``: an event that has
    not happened yet, or a view of the store not yet written, is a mistake."""
    if at > now + MAX_FUTURE_SKEW_SECONDS:
        raise InvalidInputError(
            f"{field}: must not be more than {MAX_FUTURE_SKEW_SECONDS:.0f} seconds in the "
            f"future, got {_iso(at)}",
            field=field,
        )


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


class MemoryFilter(_Input):
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


def memory_from_fields(fields: Mapping[str, Any]) -> Memory:
    """A memory from a store row.

    Absent properties come back as nulls; dropping them lets the model's
    defaults stand in, so memories written by older versions still read.
    """
    return Memory.model_validate({k: v for k, v in fields.items() if v is not None})


class ReviewFilter(_Input):
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
    """One logged staging step of a memory: merged, activated or rejected."""

    model_config = ConfigDict(frozen=True)

    id: str
    memory_id: str
    kind: str
    signal: str | None = None
    before: str | None = None
    after: str | None = None
    similarity: float | None = None
    merged_from: str | None = None
    at: float


class BulkReviewResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str
    dry_run: bool
    matched: list[str]
    """Candidates the filter selected."""
    applied: list[str]
    """Those the action changed (none in a dry run)."""


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


class Session(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    project_id: str
    state: SessionState = SessionState.ACTIVE
    name: str | None = None
    promotion_enabled: bool = True
    promotion_interval_seconds: float | None = None
    """``None``: the retention rules' interval."""
    max_items: int | None = None
    """Working-tier size that triggers promotion and rotation; ``None``: ``short_term_max``."""
    created_at: float
    updated_at: float


class PromotionStats(BaseModel):
    """A session's promotion record: totals and the last run's result."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    project_id: str
    enabled: bool = True
    interval_seconds: float
    next_run_at: float | None = None
    runs: int = 0
    total_promoted: int = 0
    last_run_at: float | None = None
    last_run_id: str | None = None
    last_trigger: str | None = None
    last_promoted: int = 0
    last_failed: int = 0
    last_rotated: int = 0
    last_remaining: int = 0
    last_threshold: float | None = None


class PromotionEvent(BaseModel):
    """One logged move of one memory between tiers."""

    model_config = ConfigDict(frozen=True)

    id: str
    run_id: str
    memory_id: str
    session_id: str
    trigger: str
    from_tier: Tier
    to_tier: Tier
    score: float
    component_names: list[str] = Field(default_factory=list)
    component_values: list[float] = Field(default_factory=list)
    component_contributions: list[float] = Field(default_factory=list)
    at: float
    reason: str | None = None
    """Why it moved: the score against the threshold it needed and the rules that applied."""


class Relation(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: RelationType
    from_id: str
    to_id: str
    rationale: str | None = None
    weight: float = 1.0
    created_at: float


class RelationEvent(BaseModel):
    """A removed relation: the edge as it was, who removed it and why."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str = "removed"
    type: RelationType
    from_id: str
    to_id: str
    rationale: str | None = None
    weight: float = 1.0
    created_at: float | None = None
    removed_by: str
    reason: str
    at: float


class AutoLink(AnyCaseEnum):
    """A relation graphmem writes itself, as ``RELATED_TO``, when a memory is
    stored in a project that turned it on (``ProjectSettings.auto_links``)."""

    PREVIOUS_TURN = "previous_turn"
    """To the latest earlier memory (by ``occurred_at``) of the same session."""
    SAME_ENTITY = "same_entity"
    """To the most recent memories naming the same entity (``graphmem.services.entities``)."""


class ProjectSettings(BaseModel):
    """How one project runs, kept as properties of its ``:Project`` node.

    Each setting is a field with its default, which a project that never set
    it has; a new setting is a new field (and a field of
    ``ProjectSettingsUpdate``), stored under its own name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    auto_links: list[AutoLink] = Field(default_factory=list)
    """The links written at ingest; none by default (docs/retrieval.md has what
    each adds on the dev sets)."""
    default_visibility: Visibility | None = None
    """Who sees a new memory whose agent does not say; unset, the server's
    ``GRAPHMEM_DEFAULT_VISIBILITY``."""

    @field_validator("auto_links")
    @classmethod
    def _in_order(cls, links: list[AutoLink]) -> list[AutoLink]:
        return [link for link in AutoLink if link in links]

    @classmethod
    def stored(cls, props: Mapping[str, Any] | None) -> ProjectSettings:
        """The settings held by a project node's properties (others ignored)."""
        given = {k: v for k, v in (props or {}).items() if k in cls.model_fields and v is not None}
        return cls.model_validate(given)


class ProjectSettingsUpdate(_Input):
    """A change of some project settings; a field left out (``None``) keeps its value."""

    auto_links: list[AutoLink] | None = None
    default_visibility: Visibility | None = None

    def stored_fields(self) -> dict[str, Any]:
        """The properties of the project node to set: the fields given, as stored."""
        return self.model_dump(mode="json", exclude_none=True)


class SharingEvent(BaseModel):
    """One logged change of who sees a memory: shared, unshared, or copied to
    another project."""

    model_config = ConfigDict(frozen=True)

    id: str
    memory_id: str
    kind: str
    """``shared``, ``unshared`` or ``copied``."""
    by: str
    """The agent that did it, or ``admin`` for a caller bound to no agent."""
    from_visibility: Visibility | None = None
    to_visibility: Visibility | None = None
    to_project_id: str | None = None
    """Where a copy went, and its id there."""
    copy_id: str | None = None
    at: float


class Page(BaseModel):
    """One page of a cursor-paginated listing."""

    items: list[Memory]
    has_next: bool
    end_cursor: str | None = None
    start_cursor: str | None = None


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], data: Any) -> M:
    """Validate ``data`` into ``model``, or raise one error naming each bad field."""
    if isinstance(data, model):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_input(exc) from None


def invalid_input(
    exc: ValidationError, *, locate: Callable[[tuple[Any, ...]], str] | None = None
) -> InvalidInputError:
    """One error naming every bad field; ``locate`` renames pydantic's locations."""
    return errors.invalid_input(exc, locate=locate)
