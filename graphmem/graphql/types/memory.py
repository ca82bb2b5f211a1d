"""The memory view, its logs and its pages.

A memory's promotion and staging logs refer back to the memory, so they live
here with it.
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.relay import PageInfo

from graphmem.domain import kinds, models, review, sessions
from graphmem.domain.clock import as_datetime, to_datetime
from graphmem.domain.dependencies import Change
from graphmem.graphql.errors import report_unshowable
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.relations import Relation
from graphmem.graphql.types.scores import ImportanceBreakdown
from graphmem.graphql.types.sessions import Session
from graphmem.services import promotion as engine

strawberry.enum(
    engine.Trigger, name="PromotionTrigger", description="What started a promotion run."
)


@strawberry.type(description="A stored memory item.")
class Memory:
    model: strawberry.Private[models.Memory]
    id: strawberry.ID
    project_id: strawberry.ID
    session_id: strawberry.ID
    content: str
    memory_type: kinds.MemoryType | None
    tier: kinds.Tier
    status: kinds.Status
    confidence: float
    importance: float = strawberry.field(
        description="The score stored at the last write; importanceBreakdown is as of now."
    )
    access_count: int = strawberry.field(
        description="Explicit uses (recordAccess); what frequency and importance read."
    )
    retrieval_count: int = strawberry.field(
        description="How often knowledgeContext returned it; retrieval is not counted as use."
    )
    occurrence_count: int
    feedback: float = strawberry.field(description="The sum of all feedback values given.")
    feedback_count: int
    pinned: bool
    source: kinds.Source
    suggested_by: kinds.SuggestedBy
    self_assessment: kinds.SelfAssessment | None
    tags: list[str]
    rationale: str | None
    evidence: list[str]
    agent_id: strawberry.ID | None
    visibility: kinds.Visibility = strawberry.field(
        description="PRIVATE to its agent or SHARED with the project; a memory stored before "
        "visibility existed, or without an agent, is SHARED."
    )
    superseded_by: strawberry.ID | None
    created_at: datetime
    occurred_at: datetime = strawberry.field(
        description="When what it records happened; recency and staleness count from it."
    )
    updated_at: datetime
    last_accessed_at: datetime | None
    last_retrieved_at: datetime | None
    promoted_at: datetime | None
    archived_at: datetime | None
    archived_from: kinds.Tier | None = strawberry.field(
        description="The tier an archived memory left, where restoring puts it back."
    )
    archive_reason: str | None
    activated_at: datetime | None = strawberry.field(description="When a candidate became active.")
    last_seen: datetime | None = strawberry.field(
        description="When a duplicate of this memory was last written and merged into it."
    )
    merged_into: strawberry.ID | None
    evaluator_relevance: float | None = strawberry.field(
        description="Relevance evidence from the consistency evaluator, in [0, 1]."
    )
    variants: list[str] = strawberry.field(
        description="Other wordings of this memory that near-duplicate writes merged into it."
    )
    conflicts_with: strawberry.ID | None = strawberry.field(
        description="The memory this candidate may contradict: written as a near match "
        "that differs in meaning, it waits in the review queue."
    )
    conflict_reason: str | None = strawberry.field(
        description="How it differs from conflictsWith (negation, number, version, entity, "
        "correction...)."
    )
    valid_from: datetime = strawberry.field(
        description="When what it records began to hold: given, or when it happened."
    )
    valid_to: datetime | None = strawberry.field(
        description="When it stopped holding: given, or the start of the memory that "
        "superseded it; null while it holds."
    )
    copied_from: strawberry.ID | None = strawberry.field(
        description="The memory this one is a copy of (in copiedFromProject)."
    )
    copied_from_project: strawberry.ID | None
    copied_at: datetime | None
    copied_by: str | None = strawberry.field(
        description="The agent that made the copy, or 'admin' for a caller bound to no agent."
    )
    review_change: Change | None = strawberry.field(
        description="Set while it needs review: how a memory it rests on (by ENABLES or "
        "CONSTRAINS, a few hops at most) stopped being current. confirmMemory clears it."
    )
    review_cause: strawberry.ID | None = strawberry.field(
        description="The memory that changed (null when this reader may not see it)."
    )
    review_by: strawberry.ID | None = strawberry.field(
        description="The memory that superseded or may contradict reviewCause, if one did."
    )
    review_path: list[kinds.RelationType] = strawberry.field(
        description="The relations from reviewCause to this memory, in order."
    )
    review_marked_at: datetime | None
    review_reason: str | None = strawberry.field(
        description="The mark in one sentence: what it rests on, by which relations, what "
        "changed and when."
    )
    viewer: strawberry.Private[str | None] = None
    """The agent whose view the root field asked for (``agentId``); its nested
    fields read that view too. ``None``: the request's own view."""

    @classmethod
    def of(cls, memory: models.Memory, viewer: str | None = None) -> Memory:
        report_unshowable(memory)
        return cls(
            viewer=viewer,
            model=memory,
            id=strawberry.ID(memory.id),
            project_id=strawberry.ID(memory.project_id),
            session_id=strawberry.ID(memory.session_id),
            content=memory.content,
            memory_type=memory.memory_type,
            tier=memory.tier,
            status=memory.status,
            confidence=memory.confidence,
            importance=memory.importance,
            access_count=memory.access_count,
            retrieval_count=memory.retrieval_count,
            occurrence_count=memory.occurrence_count,
            feedback=memory.feedback,
            feedback_count=memory.feedback_count,
            pinned=memory.pinned,
            source=memory.source,
            suggested_by=memory.suggested_by,
            self_assessment=memory.self_assessment,
            tags=memory.tags,
            rationale=memory.rationale,
            evidence=memory.evidence,
            agent_id=strawberry.ID(memory.agent_id) if memory.agent_id else None,
            visibility=memory.visibility,
            superseded_by=strawberry.ID(memory.superseded_by) if memory.superseded_by else None,
            created_at=as_datetime(memory.created_at),
            occurred_at=as_datetime(memory.occurred),
            updated_at=as_datetime(memory.updated_at),
            last_accessed_at=to_datetime(memory.last_accessed_at),
            last_retrieved_at=to_datetime(memory.last_retrieved_at),
            promoted_at=to_datetime(memory.promoted_at),
            archived_at=to_datetime(memory.archived_at),
            archived_from=memory.archived_from,
            archive_reason=memory.archive_reason,
            activated_at=to_datetime(memory.activated_at),
            last_seen=to_datetime(memory.last_seen),
            merged_into=strawberry.ID(memory.merged_into) if memory.merged_into else None,
            evaluator_relevance=memory.evaluator_relevance,
            variants=memory.variants,
            conflicts_with=strawberry.ID(memory.conflicts_with) if memory.conflicts_with else None,
            conflict_reason=memory.conflict_reason,
            valid_from=as_datetime(memory.valid_since),
            valid_to=to_datetime(memory.valid_to),
            copied_from=strawberry.ID(memory.copied_from) if memory.copied_from else None,
            copied_from_project=(
                strawberry.ID(memory.copied_from_project) if memory.copied_from_project else None
            ),
            copied_at=to_datetime(memory.copied_at),
            copied_by=memory.copied_by,
            review_change=memory.review_change,
            review_cause=strawberry.ID(memory.review_cause) if memory.review_cause else None,
            review_by=strawberry.ID(memory.review_by) if memory.review_by else None,
            review_path=memory.review_path,
            review_marked_at=to_datetime(memory.review_marked_at),
            review_reason=mark.reason if (mark := memory.review_mark) else None,
        )

    @strawberry.field(description="The importance score recomputed now, factor by factor.")
    def importance_breakdown(self, info: Info) -> ImportanceBreakdown:
        return ImportanceBreakdown.of(info.context.gm.importance_breakdown(self.model))

    @strawberry.field(description="The typed edges touching this memory, oldest first.")
    async def relations(self, info: Info) -> list[Relation]:
        loaders = info.context.loaders.view(self.viewer)
        found = await loaders.relations(self.model.project_id).load(self.model.id)
        return [Relation.of(relation) for relation in found]

    @strawberry.field(
        description="The session this memory was recorded in; null when it holds nothing "
        "the caller may read."
    )
    async def session(self, info: Info) -> Session | None:
        loader = info.context.loaders.view(self.viewer).sessions(self.model.project_id)
        found = await loader.load(self.model.session_id)
        return Session.of(found) if found else None

    @strawberry.field(
        description="This memory's moves between tiers, newest first "
        "(one read per memory: meant for a few memories, not long pages)."
    )
    async def promotion_events(self, info: Info, limit: int = 50) -> list[PromotionEvent]:
        project = self.model.project_id
        events = await run_in_threadpool(
            info.context.loaders.view(self.viewer).gm.promotion_events,
            memory_id=self.model.id,
            limit=limit,
            project_id=project,
        )
        return [PromotionEvent.of(event, project, self.viewer) for event in events]

    @strawberry.field(
        description="This memory's staging steps (merged, activated, rejected), newest first "
        "(one read per memory: meant for a few memories, not long pages)."
    )
    async def staging_events(self, info: Info, limit: int = 50) -> list[StagingEvent]:
        events = await run_in_threadpool(
            info.context.loaders.view(self.viewer).gm.staging_events,
            self.model.id,
            limit=limit,
            project_id=self.model.project_id,
        )
        return [StagingEvent.of(event) for event in events]


@strawberry.type(description="One factor of a logged promotion score.")
class PromotionScoreComponent:
    name: str
    value: float
    contribution: float


@strawberry.type(description="One logged move of one memory between tiers.")
class PromotionEvent:
    project_id: strawberry.Private[str | None]
    id: strawberry.ID
    run_id: strawberry.ID
    memory_id: strawberry.ID
    session_id: strawberry.ID
    trigger: engine.Trigger
    from_tier: kinds.Tier
    to_tier: kinds.Tier
    score: float
    components: list[PromotionScoreComponent] = strawberry.field(
        description="The score factor by factor, as it was at the move."
    )
    at: datetime
    reason: str | None = strawberry.field(
        description="Why it moved: score against the threshold it needed, and the retention "
        "rules that applied (time decay, tag, evidence for a long-term tier)."
    )
    viewer: strawberry.Private[str | None] = None
    """The agent view its memory is read in (see ``Memory.viewer``)."""

    @classmethod
    def of(
        cls, event: sessions.PromotionEvent, project_id: str | None, viewer: str | None = None
    ) -> PromotionEvent:
        return cls(
            viewer=viewer,
            project_id=project_id,
            id=strawberry.ID(event.id),
            run_id=strawberry.ID(event.run_id),
            memory_id=strawberry.ID(event.memory_id),
            session_id=strawberry.ID(event.session_id),
            trigger=engine.Trigger(event.trigger),
            from_tier=event.from_tier,
            to_tier=event.to_tier,
            score=event.score,
            reason=event.reason,
            components=[
                PromotionScoreComponent(name=name, value=value, contribution=contribution)
                for name, value, contribution in zip(
                    event.component_names,
                    event.component_values,
                    event.component_contributions,
                    strict=True,
                )
            ],
            at=as_datetime(event.at),
        )

    @strawberry.field(description="The memory that moved; null once it has been forgotten.")
    async def memory(self, info: Info) -> Memory | None:
        loader = info.context.loaders.view(self.viewer).memories(self.project_id)
        found = await loader.load(self.memory_id)
        return Memory.of(found, self.viewer) if found else None


@strawberry.type(description="One logged staging step of a memory.")
class StagingEvent:
    id: strawberry.ID
    memory_id: strawberry.ID
    kind: str = strawberry.field(
        description="merged, activated, rejected; marked (a memory it rests on changed), "
        "confirmed (a reviewer said it still holds) or cleared (the change was undone); "
        "undone (a curation of it was taken back: before names the curation, after the "
        "memories the undo brought back, wrote or archived)."
    )
    signal: str | None = strawberry.field(
        description="Why: the match of a merge (exact, near, manual), the signal that "
        "activated (recurrence, feedback, evaluator, manual:pin, manual:edit, "
        "manual:approve), or a rejection's reason."
    )
    before: str | None = strawberry.field(description="The status or tier before the step.")
    after: str | None = strawberry.field(description="The status or tier after the step.")
    similarity: float | None = strawberry.field(description="How close a merged write was.")
    merged_from: strawberry.ID | None = strawberry.field(
        description="The memory folded into this one by mergeMemories."
    )
    by: str | None = strawberry.field(description="Who undid a curation (kind undone).")
    at: datetime

    @classmethod
    def of(cls, event: review.StagingEvent) -> StagingEvent:
        return cls(
            id=strawberry.ID(event.id),
            memory_id=strawberry.ID(event.memory_id),
            kind=event.kind,
            signal=event.signal,
            before=event.before,
            after=event.after,
            similarity=event.similarity,
            merged_from=strawberry.ID(event.merged_from) if event.merged_from else None,
            by=event.by,
            at=as_datetime(event.at),
        )


@strawberry.type(description="A memory in a page of memories.")
class MemoryEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this memory.")
    node: Memory


@strawberry.type(description="A page of memories, newest first.")
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo
