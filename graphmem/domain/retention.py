"""Retention rules: when to promote, rotate and archive.

The rules themselves, validated from plain values: where they are read from
(a YAML file, with environment variables overriding single rules) is
``graphmem.settings.retention``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from graphmem.domain.deliveries import HintKept
from graphmem.domain.dependencies import DEFAULT_DEPTH, MAX_DEPTH
from graphmem.domain.kinds import Tier
from graphmem.domain.restatement.verdicts import RestatementThresholds

DAY = 86_400.0
Days = Annotated[float, Field(ge=0)]
Threshold = Annotated[float, Field(ge=0.0, le=1.0)]


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SemanticEvidence(_Rule):
    """What an episodic memory must show, beyond scoring high again, to become
    semantic (long-term): any one of these is enough."""

    min_sessions: int = Field(default=2, ge=2)
    """Distinct sessions that used it (its own included)."""
    min_feedback: float = Field(default=1.0, gt=0)
    """Net positive feedback."""
    min_occurrences: int = Field(default=2, ge=2)
    """Times it was written (recurrence: duplicates merged into it)."""
    min_dwell_days: float = Field(default=3.0, ge=0)
    """Days spent in episodic: a memory that held its score that long has proved steady."""


class TimeDecay(_Rule):
    """The promotion threshold falls for older memories, so a steady but old
    memory is not stuck below a bar set for fresh ones (its recency term only falls)."""

    enabled: bool = True
    start_days: float = Field(default=7.0, ge=0)
    """Age (since creation) after which the threshold starts to fall."""
    per_day: float = Field(default=0.01, ge=0.0, le=1.0)
    """How much the threshold falls per day past ``start_days``."""
    floor: float = Field(default=0.45, ge=0.0, le=1.0)
    """The threshold never falls below this."""


class ArchiveExpiry(_Rule):
    """Opt-in deletion of long-archived memories, each exported to a JSONL file first."""

    enabled: bool = False
    after_days: float = Field(default=365.0, gt=0)
    """Days in the archive after which a memory is exported, then deleted."""
    export_dir: str = "archive-exports"
    """Where the JSONL exports go (one file per project and day, appended to)."""


class Consolidation(_Rule):
    """How consolidation groups related memories and writes one memory per group
    (docs/consolidation.md)."""

    enabled: bool = False
    """The scheduler's hourly project pass consolidates too (the job runs by hand otherwise)."""
    similarity: float = Field(default=0.8, ge=0.0, le=1.0)
    """Embedding cosine at or above which two memories the restatement check judges
    the same statement are grouped (contradictions and changed values never are)."""
    related_similarity: float = Field(default=0.9, ge=0.0, le=1.0)
    """Cosine at or above which two memories group even when they are different
    statements about one thing (distinct events below it keep their own memory)."""
    neighbours: int = Field(default=10, ge=1, le=100)
    """Nearest neighbours asked of the vector index per memory."""
    related_to: bool = True
    """``RELATED_TO`` edges join groups as well as similarity does."""
    min_group_size: int = Field(default=2, ge=2, le=1_000)
    max_group_size: int = Field(default=50, ge=2, le=1_000)
    """A group stops growing at this size; the rest stay as they are."""
    max_summary_chars: int = Field(default=600, ge=100, le=4_000)
    """The consolidated statement: the central one, then what the others add, to this length."""


class Deliveries(_Rule):
    """The record of what each knowledgeContext answer handed out (docs/deliveries.md):
    whether it is kept, how it keeps the hint, and how much of it a project keeps."""

    enabled: bool = True
    hint: HintKept = HintKept.DIGEST
    """``digest``: only the hint's SHA-256 (the prompt hook sends whole user prompts,
    which the record should not copy); ``text``: the hint itself as well."""
    keep_count: int | None = Field(default=10_000, ge=1)
    """A project's newest deliveries kept; older ones are pruned (``None``: no count limit)."""
    keep_days: Days | None = 30.0
    """Days a delivery is kept (``None``: no age limit)."""

    def keep_after(self, now: float) -> float | None:
        """The time before which a delivery is pruned, or ``None``."""
        return None if self.keep_days is None else now - self.keep_days * DAY


class RetentionRules(_Rule):
    """When to promote, rotate and archive, and how a candidate becomes active."""

    promote_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    """Importance at or above which a short-term memory is promoted."""
    max_promotions_per_run: int = Field(default=20, ge=1, le=10_000)
    promotion_interval_seconds: float = Field(default=30.0, gt=0)
    """How often the scheduler runs promotion for each active session."""
    archive_interval_seconds: float = Field(default=3_600.0, gt=0)
    """How often the scheduler archives stale memories in each project."""
    short_term_max: int = Field(default=5_000, ge=1)
    """A session's working-tier size that triggers promotion, then rotation."""
    rotate_headroom: float = Field(default=0.1, ge=0.0, lt=1.0)
    """Rotation archives the oldest working items down to this fraction below the maximum."""
    archive_importance_below: float = Field(default=0.3, ge=0.0, le=1.0)
    """Stale memories scoring below this are archived."""
    stale_after_days: dict[Tier, Days | None] = Field(
        default_factory=lambda: {
            Tier.WORKING: 1.0,
            Tier.EPISODIC: 14.0,
            Tier.SEMANTIC: 90.0,
            Tier.PROCEDURAL: None,
        }
    )
    """Days without use after which a memory of the tier is stale; ``None``: never."""
    semantic_evidence: SemanticEvidence = Field(default_factory=SemanticEvidence)
    time_decay: TimeDecay = Field(default_factory=TimeDecay)
    tag_thresholds: dict[str, Threshold] = Field(
        default_factory=lambda: {"critical": 0.0, "user_goal": 0.0}
    )
    """Tag -> its own promotion threshold (0: promote at the next run); the lowest of a
    memory's tags applies, and a tag rule counts as evidence for semantic."""
    archive_expiry: ArchiveExpiry = Field(default_factory=ArchiveExpiry)
    consolidation: Consolidation = Field(default_factory=Consolidation)
    cascade_depth: int = Field(default=DEFAULT_DEPTH, ge=0, le=MAX_DEPTH)
    """How many ENABLES/CONSTRAINS hops a change's review mark travels (0: none;
    ``graphmem.domain.dependencies``)."""
    deliveries: Deliveries = Field(default_factory=Deliveries)

    # -- staging: how a candidate earns its way to active --------------------
    dedup_similarity: float = Field(default=0.92, ge=0.0, le=1.0)
    """Embedding cosine at or above which the evaluator reports two live memories as
    near duplicates (a write's near matches are judged by ``restatement``)."""
    dedup_jaccard: float = Field(default=0.8, ge=0.0, le=1.0)
    """Token Jaccard used instead while a memory has no embedding."""
    restatement: RestatementThresholds = Field(default_factory=RestatementThresholds)
    """How a near match is judged: the same statement, an update or a conflict."""
    recurrence_threshold: int = Field(default=2, ge=2)
    """Occurrences at which a candidate becomes active."""
    feedback_threshold: int = Field(default=2, ge=1)
    """Net positive feedback at which a candidate becomes active."""
    relevance_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    """Evaluator relevance evidence at which a candidate becomes active."""
    candidate_slot_min_score: float = Field(default=0.8, ge=0.0, le=1.0)
    """The injection policy's optional candidate slot needs at least this score."""

    def stale_seconds(self, tier: Tier) -> float | None:
        days = self.stale_after_days.get(tier)
        return None if days is None else days * DAY

    def rotate_to(self, limit: int) -> int:
        """How many working items a full session keeps after rotation."""
        return int(limit * (1.0 - self.rotate_headroom))
