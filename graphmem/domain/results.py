"""What the maintenance jobs report: promotion runs, archival, consolidation and
the background consistency check.

``GraphMem`` returns these and the remote client decodes the server's answers
into the same classes, so they live apart from the jobs themselves: a module
that imports them loads neither the store nor a service, and the client starts
without the engines (networkx, the embedding runtime) behind them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory
from graphmem.domain.scoring import ImportanceBreakdown


class Trigger(StrEnum):
    MANUAL = "manual"
    PERIODIC = "periodic"
    PAUSE = "pause"
    CLOSE = "close"
    MEMORY_LIMIT = "memory_limit"
    AGENT_DECISION = "agent_decision"


@dataclass(frozen=True)
class Candidate:
    """A memory a promotion run moves (or, dry, would move)."""

    memory: Memory
    score: float
    breakdown: ImportanceBreakdown
    """The score factor by factor, and the retention rules that applied."""
    to_tier: Tier
    threshold: float = 0.0
    """The importance this memory needed (its tag's, or the run's lowered by age)."""

    @property
    def reason(self) -> str:
        """Why it moves, as the promotion event records it."""
        rules = "; ".join(f"{n.rule}: {n.detail}" for n in self.breakdown.rules)
        return f"score {self.score:.3f} >= {self.threshold:.3f}" + (f"; {rules}" if rules else "")


@dataclass(frozen=True)
class PromotionFailure:
    memory_id: str
    reason: str


@dataclass
class RunResult:
    run_id: str
    session_id: str
    project_id: str
    trigger: Trigger
    dry_run: bool
    threshold: float
    candidates: list[Candidate] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    failures: list[PromotionFailure] = field(default_factory=list)
    rotated: int = 0
    remaining: int = 0
    duration_ms: float = 0.0

    @property
    def count(self) -> int:
        return len(self.promoted)


@dataclass(frozen=True)
class ArchiveItem:
    memory_id: str
    tier: Tier
    score: float
    reason: str


@dataclass
class ArchiveResult:
    project_id: str
    dry_run: bool
    items: list[ArchiveItem] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Group:
    """Memories one consolidated memory will stand for, most central first."""

    members: list[Memory]
    fingerprint: str
    reason: str
    """What joined them: the similarity range and how many ``RELATED_TO`` links."""
    content: str
    """The consolidated statement: the central member's text and what the others add."""
    seen: str
    """How often and when the group was seen (kept as the memory's first evidence
    entry rather than in its text, which retrieval matches against)."""

    @property
    def central(self) -> Memory:
        return self.members[0]

    @property
    def member_ids(self) -> list[str]:
        return [m.id for m in self.members]


@dataclass(frozen=True, slots=True)
class Consolidated:
    """One group written: the new memory and the sources it supersedes."""

    memory_id: str
    source_ids: list[str]
    fingerprint: str


@dataclass
class ConsolidationResult:
    project_id: str
    dry_run: bool
    scanned: int = 0
    """Memories read (live, active, current); ``eligible`` of them may be grouped."""
    eligible: int = 0
    groups: list[Group] = field(default_factory=list)
    """The groups found (with fingerprints given: the ones asked for that still hold)."""
    consolidated: list[Consolidated] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Groups skipped, and why."""

    @property
    def memories_consolidated(self) -> int:
        return sum(len(c.source_ids) for c in self.consolidated)


@dataclass
class Job:
    """A background evaluation (``submit``): its id is the report id it writes."""

    id: str
    project_id: str
    state: str = "queued"
    """``queued``, ``running``, ``succeeded`` or ``failed``."""
    submitted_at: float = 0.0
    finished_at: float | None = None
    error: str | None = None
