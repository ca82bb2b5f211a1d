"""Promotion and archival: run promotion, read a session's record and log, switch
the periodic trigger, archive stale memories and restore them.

Dry runs go through the same calls as real ones, so what a dry run shows is
what a real run would do at that moment.
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from starlette.concurrency import run_in_threadpool

from graphmem.domain import kinds, sessions
from graphmem.domain.clock import to_datetime
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory, PromotionEvent
from graphmem.graphql.types.scores import ImportanceBreakdown
from graphmem.services import archival
from graphmem.services import promotion as engine


@strawberry.type(description="A memory a promotion run found worth moving.")
class PromotionCandidate:
    memory: Memory = strawberry.field(description="The memory as evaluated, before any move.")
    score: float = strawberry.field(description="Its importance at evaluation.")
    from_tier: kinds.Tier
    to_tier: kinds.Tier
    importance_breakdown: ImportanceBreakdown = strawberry.field(
        description="The score factor by factor; the contributions sum to the score."
    )
    threshold: float = strawberry.field(
        description="The importance this memory needed: its tag's, or the run's lowered by age."
    )
    reason: str = strawberry.field(description="Why it moves, as its promotion event records.")

    @classmethod
    def of(cls, candidate: engine.Candidate) -> PromotionCandidate:
        return cls(
            memory=Memory.of(candidate.memory),
            score=candidate.score,
            from_tier=candidate.memory.tier,
            to_tier=candidate.to_tier,
            importance_breakdown=ImportanceBreakdown.of(candidate.breakdown),
            threshold=candidate.threshold,
            reason=candidate.reason,
        )


@strawberry.type(description="A candidate that could not move; the others still did.")
class PromotionFailure:
    memory_id: strawberry.ID
    reason: str


@strawberry.type(description="One promotion run: what moved (or, in a dry run, would move).")
class PromotionRun:
    run_id: strawberry.ID
    session_id: strawberry.ID
    project_id: strawberry.ID
    trigger: engine.Trigger
    dry_run: bool = strawberry.field(description="True: nothing was written, not even the run.")
    threshold: float = strawberry.field(description="The importance a memory needed to move.")
    candidates: list[PromotionCandidate] = strawberry.field(
        description="Memories at or above the threshold, highest score first, capped per run."
    )
    promoted: list[strawberry.ID] = strawberry.field(description="The memories that moved.")
    promoted_count: int
    failures: list[PromotionFailure]
    rotated: int = strawberry.field(
        description="Oldest working memories archived because the session was full."
    )
    remaining: int = strawberry.field(description="The session's working memories after the run.")
    duration_ms: float

    @classmethod
    def of(cls, run: engine.RunResult) -> PromotionRun:
        return cls(
            run_id=strawberry.ID(run.run_id),
            session_id=strawberry.ID(run.session_id),
            project_id=strawberry.ID(run.project_id),
            trigger=run.trigger,
            dry_run=run.dry_run,
            threshold=run.threshold,
            candidates=[PromotionCandidate.of(c) for c in run.candidates],
            promoted=[strawberry.ID(memory_id) for memory_id in run.promoted],
            promoted_count=run.count,
            failures=[
                PromotionFailure(memory_id=strawberry.ID(f.memory_id), reason=f.reason)
                for f in run.failures
            ],
            rotated=run.rotated,
            remaining=run.remaining,
            duration_ms=run.duration_ms,
        )


@strawberry.type(description="A session's promotion record: settings, totals, the last run.")
class PromotionStats:
    session_id: strawberry.ID
    project_id: strawberry.ID
    enabled: bool = strawberry.field(description="Whether the periodic trigger runs.")
    interval_seconds: float = strawberry.field(description="Seconds between periodic runs.")
    next_run_at: datetime | None = strawberry.field(
        description="When the periodic trigger is next due; null when disabled or not yet set."
    )
    runs: int
    total_promoted: int
    last_run_at: datetime | None
    last_run_id: strawberry.ID | None
    last_trigger: engine.Trigger | None
    last_promoted: int
    last_failed: int
    last_rotated: int
    last_remaining: int
    last_threshold: float | None

    @classmethod
    def of(cls, stats: sessions.PromotionStats) -> PromotionStats:
        return cls(
            session_id=strawberry.ID(stats.session_id),
            project_id=strawberry.ID(stats.project_id),
            enabled=stats.enabled,
            interval_seconds=stats.interval_seconds,
            next_run_at=to_datetime(stats.next_run_at),
            runs=stats.runs,
            total_promoted=stats.total_promoted,
            last_run_at=to_datetime(stats.last_run_at),
            last_run_id=strawberry.ID(stats.last_run_id) if stats.last_run_id else None,
            last_trigger=engine.Trigger(stats.last_trigger) if stats.last_trigger else None,
            last_promoted=stats.last_promoted,
            last_failed=stats.last_failed,
            last_rotated=stats.last_rotated,
            last_remaining=stats.last_remaining,
            last_threshold=stats.last_threshold,
        )


@strawberry.type(description="A stale, low-importance memory that archival selects.")
class ArchiveItem:
    project_id: strawberry.Private[str]
    memory_id: strawberry.ID
    tier: kinds.Tier = strawberry.field(description="The tier it leaves.")
    score: float = strawberry.field(description="Its importance now.")
    reason: str

    @strawberry.field(description="The memory, as it is after the operation.")
    async def memory(self, info: Info) -> Memory | None:
        found = await info.context.loaders.memories(self.project_id).load(self.memory_id)
        return Memory.of(found) if found else None


@strawberry.type(description="What archival selected in a project and, unless a dry run, archived.")
class ArchiveResult:
    project_id: strawberry.ID
    dry_run: bool
    items: list[ArchiveItem]
    archived: list[strawberry.ID] = strawberry.field(description="Empty in a dry run.")

    @classmethod
    def of(cls, result: archival.ArchiveResult) -> ArchiveResult:
        return cls(
            project_id=strawberry.ID(result.project_id),
            dry_run=result.dry_run,
            items=[
                ArchiveItem(
                    project_id=result.project_id,
                    memory_id=strawberry.ID(item.memory_id),
                    tier=item.tier,
                    score=item.score,
                    reason=item.reason,
                )
                for item in result.items
            ],
            archived=[strawberry.ID(memory_id) for memory_id in result.archived],
        )


@strawberry.type
class PromotionQuery:
    @strawberry.field(
        description="A session's promotion settings, totals and last run; "
        "an unknown session is a NOT_FOUND error. For a key bound to an agent, counts of "
        "memories are of those it may read (lastRemaining: its working ones now)."
    )
    async def promotion_stats(
        self, info: Info, session_id: strawberry.ID, project_id: ProjectId = None
    ) -> PromotionStats | None:
        gm = info.context.gm
        stats = await run_in_threadpool(gm.promotion_stats, session_id, project_id=project_id)
        return PromotionStats.of(stats)

    @strawberry.field(
        description="The promotion log of one memory or one session (name exactly one), "
        "newest first."
    )
    async def promotion_events(
        self,
        info: Info,
        memory_id: strawberry.ID | None = None,
        session_id: strawberry.ID | None = None,
        limit: int = 50,
        project_id: ProjectId = None,
    ) -> list[PromotionEvent]:
        gm = info.context.gm
        events = await run_in_threadpool(
            gm.promotion_events,
            memory_id=memory_id,
            session_id=session_id,
            limit=limit,
            project_id=project_id,
        )
        return [PromotionEvent.of(event, project_id) for event in events]


@strawberry.type
class PromotionMutation:
    @strawberry.mutation(
        description="Promote a session's worthy short-term memories now; with dryRun, "
        "show what would move and write nothing."
    )
    async def run_promotion(
        self,
        info: Info,
        session_id: strawberry.ID,
        dry_run: bool = False,
        project_id: ProjectId = None,
    ) -> PromotionRun | None:
        gm = info.context.gm
        run = await write(
            info, gm.run_promotion, session_id, dry_run=dry_run, project_id=project_id
        )
        return PromotionRun.of(run)

    @strawberry.mutation(
        description="Turn a session's periodic promotion on; the next run is one interval away."
    )
    async def enable_promotion(
        self,
        info: Info,
        session_id: strawberry.ID,
        interval_seconds: float | None = None,
        project_id: ProjectId = None,
    ) -> PromotionStats | None:
        stats = await write(
            info,
            info.context.gm.enable_promotion,
            session_id,
            interval_seconds=interval_seconds,
            project_id=project_id,
        )
        return PromotionStats.of(stats)

    @strawberry.mutation(
        description="Turn a session's periodic promotion off; pause and close still promote."
    )
    async def disable_promotion(
        self, info: Info, session_id: strawberry.ID, project_id: ProjectId = None
    ) -> PromotionStats | None:
        gm = info.context.gm
        stats = await write(info, gm.disable_promotion, session_id, project_id=project_id)
        return PromotionStats.of(stats)

    @strawberry.mutation(
        description="Archive the project's stale, low-importance memories (never pinned ones); "
        "with dryRun, only list them."
    )
    async def archive_stale(
        self, info: Info, dry_run: bool = False, project_id: ProjectId = None
    ) -> ArchiveResult | None:
        gm = info.context.gm
        result = await write(info, gm.archive_stale, dry_run=dry_run, project_id=project_id)
        return ArchiveResult.of(result)

    @strawberry.mutation(
        description="Archive one memory by hand, with the reason (restore brings it back); "
        "the memories resting on it are marked for review. A pinned memory is refused."
    )
    async def archive_memory(
        self, info: Info, id: strawberry.ID, reason: str, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await write(info, gm.archive, id, reason, project_id=project_id))

    @strawberry.mutation(description="Bring an archived memory back to the tier it left.")
    async def restore(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.restore, id, project_id=project_id))
