"""GraphQL types: views of the domain models, and inputs mirroring the domain inputs.

Output types copy a domain model's values (times become ``DateTime``) and keep
the model itself for fields computed from it. Input types only shape the
request; validation stays in the domain models, so every surface rejects the
same values with the same limits. Input defaults are read from those models
so the SDL shows the defaults the domain applies.

Types that refer to each other (a memory and its promotion and staging log)
live here together, so each area's operations module imports this one and
never another area's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import strawberry
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from strawberry.relay import PageInfo

from graphmem.domain import models
from graphmem.domain.clock import to_datetime
from graphmem.domain.scoring import ImportanceBreakdown as DomainBreakdown
from graphmem.graphql.loaders import Context
from graphmem.services import promotion as engine

# The domain enums serve as the GraphQL enums, so the two cannot drift apart;
# GraphQL shows the member names (FACT, WORKING, ...).
strawberry.enum(models.MemoryType, description="What kind of knowledge a memory holds.")
strawberry.enum(models.Tier, description="How long-lived a memory is.")
strawberry.enum(models.Status, description="How far a memory is trusted.")
strawberry.enum(models.RelationType, description="The meaning of an edge between two memories.")
strawberry.enum(
    models.Visibility,
    description="Who of a project's agents sees a memory: its own agent only, or every agent.",
)
strawberry.enum(models.Source, description="Where a memory came from.")
strawberry.enum(models.SuggestedBy, description="Who decided that a memory is worth keeping.")
strawberry.enum(models.SessionState, description="Where a session is in its lifecycle.")
strawberry.enum(models.SelfAssessment, description="The writer's own rating of a memory.")
strawberry.enum(
    engine.Trigger, name="PromotionTrigger", description="What started a promotion run."
)

Info = strawberry.Info[Context, None]


def from_epoch(epoch_seconds: float) -> datetime:
    """A stored time (UTC epoch seconds) as the DateTime GraphQL shows."""
    return datetime.fromtimestamp(epoch_seconds, tz=UTC)


@strawberry.type(description="One component of an importance score.")
class ScoreComponent:
    name: str
    value: float = strawberry.field(description="The factor on its own, in [0, 1].")
    weight: float = strawberry.field(description="Its normalised weight; weights sum to 1.")
    contribution: float = strawberry.field(description="value * weight; these sum to the total.")


@strawberry.type(description="An importance score, factor by factor, as of the request.")
class ImportanceBreakdown:
    preset: str
    total: float
    components: list[ScoreComponent]
    rules: list[str] = strawberry.field(
        description="Retention rules that bore on a promotion (threshold, time_decay, tag, "
        "evidence, agent_decision), each as 'rule: detail'; empty outside promotion."
    )

    @classmethod
    def of(cls, breakdown: DomainBreakdown) -> ImportanceBreakdown:
        return cls(
            preset=breakdown.preset,
            total=breakdown.total,
            components=[
                ScoreComponent(
                    name=c.name, value=c.value, weight=c.weight, contribution=c.contribution
                )
                for c in breakdown.components
            ],
            rules=[f"{note.rule}: {note.detail}" for note in breakdown.rules],
        )


@strawberry.type(description="A typed edge between two memories of one project.")
class Relation:
    type: models.RelationType
    from_id: strawberry.ID
    to_id: strawberry.ID
    rationale: str | None
    weight: float
    created_at: datetime

    @classmethod
    def of(cls, relation: models.Relation) -> Relation:
        return cls(
            type=relation.type,
            from_id=strawberry.ID(relation.from_id),
            to_id=strawberry.ID(relation.to_id),
            rationale=relation.rationale,
            weight=relation.weight,
            created_at=from_epoch(relation.created_at),
        )


@strawberry.type(description="A removed relation: the edge as it was, who removed it and why.")
class RelationEvent:
    id: strawberry.ID
    type: models.RelationType
    from_id: strawberry.ID
    to_id: strawberry.ID
    rationale: str | None
    weight: float
    created_at: datetime | None = strawberry.field(description="When the edge was made.")
    removed_by: str
    reason: str
    at: datetime = strawberry.field(description="When it was removed.")

    @classmethod
    def of(cls, event: models.RelationEvent) -> RelationEvent:
        return cls(
            id=strawberry.ID(event.id),
            type=event.type,
            from_id=strawberry.ID(event.from_id),
            to_id=strawberry.ID(event.to_id),
            rationale=event.rationale,
            weight=event.weight,
            created_at=to_datetime(event.created_at),
            removed_by=event.removed_by,
            reason=event.reason,
            at=from_epoch(event.at),
        )


@strawberry.type(description="A logged change of who sees a memory: shared, unshared or copied.")
class SharingEvent:
    id: strawberry.ID
    memory_id: strawberry.ID
    kind: str = strawberry.field(description="shared, unshared or copied.")
    by: str = strawberry.field(
        description="The agent that did it, or 'admin' for a caller bound to no agent."
    )
    from_visibility: models.Visibility | None
    to_visibility: models.Visibility | None
    to_project_id: strawberry.ID | None = strawberry.field(description="Where a copy went.")
    copy_id: strawberry.ID | None = strawberry.field(description="The copy's id there.")
    at: datetime

    @classmethod
    def of(cls, event: models.SharingEvent) -> SharingEvent:
        return cls(
            id=strawberry.ID(event.id),
            memory_id=strawberry.ID(event.memory_id),
            kind=event.kind,
            by=event.by,
            from_visibility=event.from_visibility,
            to_visibility=event.to_visibility,
            to_project_id=strawberry.ID(event.to_project_id) if event.to_project_id else None,
            copy_id=strawberry.ID(event.copy_id) if event.copy_id else None,
            at=from_epoch(event.at),
        )


@strawberry.type(description="A thread of work that memories are recorded in.")
class Session:
    id: strawberry.ID
    project_id: strawberry.ID
    state: models.SessionState
    name: str | None
    promotion_enabled: bool
    promotion_interval_seconds: float | None = strawberry.field(
        description="Seconds between periodic promotion runs; null: the server's default."
    )
    max_items: int | None = strawberry.field(
        description="Working-tier size that triggers promotion; null: the server's default."
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, session: models.Session) -> Session:
        return cls(
            id=strawberry.ID(session.id),
            project_id=strawberry.ID(session.project_id),
            state=session.state,
            name=session.name,
            promotion_enabled=session.promotion_enabled,
            promotion_interval_seconds=session.promotion_interval_seconds,
            max_items=session.max_items,
            created_at=from_epoch(session.created_at),
            updated_at=from_epoch(session.updated_at),
        )


@strawberry.type(description="A stored memory item.")
class Memory:
    model: strawberry.Private[models.Memory]
    id: strawberry.ID
    project_id: strawberry.ID
    session_id: strawberry.ID
    content: str
    memory_type: models.MemoryType | None
    tier: models.Tier
    status: models.Status
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
    source: models.Source
    suggested_by: models.SuggestedBy
    self_assessment: models.SelfAssessment | None
    tags: list[str]
    rationale: str | None
    evidence: list[str]
    agent_id: strawberry.ID | None
    visibility: models.Visibility = strawberry.field(
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
    archived_from: models.Tier | None = strawberry.field(
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
        description="How it differs from conflictsWith (negation, number, version, entity...)."
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
    viewer: strawberry.Private[str | None] = None
    """The agent whose view the root field asked for (``agentId``); its nested
    fields read that view too. ``None``: the request's own view."""

    @classmethod
    def of(cls, memory: models.Memory, viewer: str | None = None) -> Memory:
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
            created_at=from_epoch(memory.created_at),
            occurred_at=from_epoch(memory.occurred),
            updated_at=from_epoch(memory.updated_at),
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
            valid_from=from_epoch(memory.valid_since),
            valid_to=to_datetime(memory.valid_to),
            copied_from=strawberry.ID(memory.copied_from) if memory.copied_from else None,
            copied_from_project=(
                strawberry.ID(memory.copied_from_project) if memory.copied_from_project else None
            ),
            copied_at=to_datetime(memory.copied_at),
            copied_by=memory.copied_by,
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
    from_tier: models.Tier
    to_tier: models.Tier
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
        cls, event: models.PromotionEvent, project_id: str | None, viewer: str | None = None
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
            at=from_epoch(event.at),
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
    kind: str = strawberry.field(description="merged, activated or rejected.")
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
    at: datetime

    @classmethod
    def of(cls, event: models.StagingEvent) -> StagingEvent:
        return cls(
            id=strawberry.ID(event.id),
            memory_id=strawberry.ID(event.memory_id),
            kind=event.kind,
            signal=event.signal,
            before=event.before,
            after=event.after,
            similarity=event.similarity,
            merged_from=strawberry.ID(event.merged_from) if event.merged_from else None,
            at=from_epoch(event.at),
        )


@strawberry.type(description="A memory in a page of memories.")
class MemoryEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this memory.")
    node: Memory


@strawberry.type(description="A page of memories, newest first.")
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo


@strawberry.enum(description="How a written memory matched the one it merged into.")
class DuplicateMatch(StrEnum):
    EXACT = "exact"
    NEAR = "near"


strawberry.enum(
    models.WriteResult,
    name="RememberOutcome",
    description="What remember did: CREATED, MERGED_EXACT, MERGED_NEAR (a restatement, its "
    "wording kept as a variant), SUPERSEDED (a new value from the same source: a new memory "
    "superseding the old one) or FLAGGED_CONFLICT (a near match that says something else: "
    "a candidate in the review queue beside the memory it may contradict).",
)


@strawberry.type(description="What remember did: created a memory, or merged into an existing one.")
class RememberPayload:
    memory: Memory = strawberry.field(
        description="The new memory, or the existing one the write was counted into."
    )
    created: bool = strawberry.field(
        description="False: the content duplicated a live memory and merged into it."
    )
    match: DuplicateMatch | None = strawberry.field(
        description="How a merged write matched; null when a memory was created."
    )
    outcome: models.WriteResult
    related_id: strawberry.ID | None = strawberry.field(
        description="The older memory a SUPERSEDED write replaced or a FLAGGED_CONFLICT "
        "write may contradict."
    )
    reason: str | None = strawberry.field(
        description="Why a near match was judged so: the difference found, or the similarity."
    )

    @classmethod
    def of(cls, memory: models.Memory, outcome: models.WriteOutcome) -> RememberPayload:
        return cls(
            memory=Memory.of(memory),
            created=outcome.created,
            match=DuplicateMatch(outcome.match) if outcome.match else None,
            outcome=outcome.result,
            related_id=strawberry.ID(outcome.related_id) if outcome.related_id else None,
            reason=outcome.reason,
        )


@strawberry.type(description="What rememberMany did with one item of the batch.")
class WriteOutcome:
    id: strawberry.ID = strawberry.field(
        description="The new memory, or the existing one the item was counted into."
    )
    created: bool = strawberry.field(
        description="False: the item duplicated a live memory (or an earlier item) and merged."
    )
    match: DuplicateMatch | None = strawberry.field(
        description="How a merged item matched; null when a memory was created."
    )
    outcome: models.WriteResult
    related_id: strawberry.ID | None = strawberry.field(
        description="The older memory a SUPERSEDED item replaced or a FLAGGED_CONFLICT item "
        "may contradict."
    )
    reason: str | None = strawberry.field(
        description="Why a near match was judged so: the difference found, or the similarity."
    )

    @classmethod
    def of(cls, outcome: models.WriteOutcome) -> WriteOutcome:
        return cls(
            id=strawberry.ID(outcome.id),
            created=outcome.created,
            match=DuplicateMatch(outcome.match) if outcome.match else None,
            outcome=outcome.result,
            related_id=strawberry.ID(outcome.related_id) if outcome.related_id else None,
            reason=outcome.reason,
        )


def domain_default(model: type[BaseModel], field: str) -> Any:
    """An input field's default as the domain model applies it, for the SDL to show."""
    return model.model_fields[field].get_default(call_default_factory=True)


@strawberry.input(description="A new memory. Limits are in the README.")
class MemoryInput:
    content: str
    memory_type: models.MemoryType | None = None
    confidence: float = domain_default(models.MemoryInput, "confidence")
    source: models.Source = domain_default(models.MemoryInput, "source")
    suggested_by: models.SuggestedBy = domain_default(models.MemoryInput, "suggested_by")
    self_assessment: models.SelfAssessment | None = None
    tier: models.Tier = domain_default(models.MemoryInput, "tier")
    pinned: bool = domain_default(models.MemoryInput, "pinned")
    tags: list[str] = strawberry.field(default_factory=list)
    rationale: str | None = None
    evidence: list[str] = strawberry.field(default_factory=list)
    session_id: strawberry.ID | None = None
    agent_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="Who writes it; a key bound to an agent writes as that agent only.",
    )
    visibility: models.Visibility | None = strawberry.field(
        default=None,
        description="PRIVATE to its agent or SHARED with the project; the project's default "
        "when absent (always SHARED without an agent).",
    )
    occurred_at: datetime | None = strawberry.field(
        default=None,
        description="When it happened (a conversation turn's time, say); the time of the "
        "write when absent. At most a few minutes in the future.",
    )
    valid_from: datetime | None = strawberry.field(
        default=None,
        description="When what it records began to hold; occurredAt when absent.",
    )
    valid_to: datetime | None = strawberry.field(
        default=None,
        description="When it stopped holding (the key was rotated on 3 May); open when "
        "absent. Not before validFrom.",
    )


@strawberry.input(description="Changes to a memory; a field left out or null stays as it is.")
class MemoryUpdateInput:
    content: str | None = None
    memory_type: models.MemoryType | None = None
    confidence: float | None = None
    self_assessment: models.SelfAssessment | None = None
    tags: list[str] | None = None
    rationale: str | None = None
    evidence: list[str] | None = None
    valid_from: datetime | None = strawberry.field(
        default=None, description="When what it records began to hold."
    )
    valid_to: datetime | None = strawberry.field(
        default=None,
        description="When it stopped holding; stays if a SUPERSEDES relation into it is "
        "removed later. Not before validFrom.",
    )


@strawberry.input(description="Which memories to list; every field given must match.")
class MemoryFilter:
    tier: models.Tier | None = None
    status: models.Status | None = None
    memory_type: models.MemoryType | None = None
    session_id: strawberry.ID | None = None
    tags: list[str] = strawberry.field(
        default_factory=list, description="Memories carrying every one of these tags."
    )
    pinned: bool | None = None
    include_archived: bool = domain_default(models.MemoryFilter, "include_archived")
    include_candidates: bool = strawberry.field(
        default=domain_default(models.MemoryFilter, "include_candidates"),
        description="False hides candidates, leaving only active memories.",
    )
