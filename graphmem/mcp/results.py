"""What the MCP tools return: compact JSON an agent can read and act on.

A stored memory carries bookkeeping (counts, times, provenance, score parts)
that an agent seldom needs and that would only crowd its context, so a tool
that returns memories answers, unless called with ``full``, with the fields
that let an agent decide and refer back: each memory's id, content, type,
tier and status, each hit's score and what the call did. The views declare
the whole record; ``Compact.FULL_ONLY`` names what only ``full`` shows, and
``answer`` dumps a view either way, as JSON without indentation. A tool whose
view is not simply ``View.of`` what GraphMem returned answers with one of the
functions at the end, from the result and the call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, get_args

from mcp_types import CallToolResult, TextContent
from pydantic import (
    BaseModel,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from graphmem.api import GraphMem
from graphmem.domain import capsules, kinds, models, projects, relations, review
from graphmem.domain import retrieval as domain
from graphmem.domain.auth import Principal
from graphmem.domain.clock import as_datetime
from graphmem.domain.retrieval import prompt
from graphmem.operations.access import readable


@dataclass(frozen=True)
class Called:
    """A tool call as its answer may need it."""

    gm: GraphMem
    principal: Principal
    project: str | None
    arguments: Mapping[str, Any]


def _iso(at: float | None) -> str | None:
    return None if at is None else as_datetime(at).isoformat()


FULL = "full"
"""The tool parameter, and the serialization context key, that asks for whole records."""


class Compact(BaseModel):
    """A view whose ``FULL_ONLY`` fields are dumped only when the call asked for
    ``full``; each of them has a default, so a compact answer still matches
    the tool's output schema."""

    FULL_ONLY: ClassVar[frozenset[str]] = frozenset()
    WHEN_SET: ClassVar[frozenset[str]] = frozenset()
    """Fields a compact answer leaves out while they are null."""

    @model_serializer(mode="wrap")
    def _compact(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        if (info.context or {}).get(FULL, True):
            return dumped
        return {
            name: value
            for name, value in dumped.items()
            if name not in self.FULL_ONLY and (value is not None or name not in self.WHEN_SET)
        }


class MemoryBrief(BaseModel):
    """What an agent needs of a memory to decide and to refer back to it."""

    id: str
    content: str
    memory_type: kinds.MemoryType | None
    tier: kinds.Tier
    status: kinds.Status
    needs_review: str | None = Field(
        default=None,
        description="Set when a memory it rests on stopped being current: what changed "
        "(check it before relying on it).",
    )


class MemoryView(MemoryBrief, Compact):
    """A memory: its brief, and with ``full`` the whole record."""

    importance: float | None = Field(default=None, description="Stored importance in [0, 1].")
    confidence: float | None = None
    pinned: bool | None = None
    tags: list[str] | None = None
    rationale: str | None = None
    session_id: str | None = None
    agent_id: str | None = Field(default=None, description="The agent that wrote it.")
    visibility: kinds.Visibility | None = Field(
        default=None,
        description="private to its agent, or shared with every agent of the project.",
    )
    copied_from: str | None = Field(
        default=None, description="The memory this one is a copy of, if any."
    )
    occurrence_count: int | None = None
    access_count: int | None = None
    retrieval_count: int | None = Field(
        default=None, description="How often knowledge_context returned it."
    )
    superseded_by: str | None = Field(
        default=None, description="The memory that replaces this one, if any."
    )
    conflicts_with: str | None = Field(
        default=None,
        description="The memory this candidate may contradict (it waits for review).",
    )
    created_at: str | None = Field(default=None, description="ISO-8601, UTC.")
    occurred_at: str | None = Field(
        default=None, description="When what it records happened; ISO-8601, UTC."
    )
    valid_from: str | None = Field(
        default=None, description="When what it records began to hold; ISO-8601, UTC."
    )
    valid_to: str | None = Field(
        default=None,
        description="When it stopped holding (given, or when a newer memory superseded it).",
    )
    last_accessed_at: str | None = None

    @classmethod
    def of(cls, memory: models.Memory) -> MemoryView:
        return cls(
            id=memory.id,
            content=memory.content,
            memory_type=memory.memory_type,
            tier=memory.tier,
            status=memory.status,
            needs_review=mark.reason if (mark := memory.review_mark) else None,
            importance=memory.importance,
            confidence=memory.confidence,
            pinned=memory.pinned,
            tags=memory.tags,
            rationale=memory.rationale,
            session_id=memory.session_id,
            agent_id=memory.agent_id,
            visibility=memory.visibility,
            copied_from=memory.copied_from,
            occurrence_count=memory.occurrence_count,
            access_count=memory.access_count,
            retrieval_count=memory.retrieval_count,
            superseded_by=memory.superseded_by,
            conflicts_with=memory.conflicts_with,
            created_at=_iso(memory.created_at) or "",
            occurred_at=_iso(memory.occurred) or "",
            valid_from=_iso(memory.valid_since) or "",
            valid_to=_iso(memory.valid_to),
            last_accessed_at=_iso(memory.last_accessed_at),
        )


MemoryView.FULL_ONLY = frozenset(MemoryView.model_fields) - frozenset(MemoryBrief.model_fields)
MemoryView.WHEN_SET = frozenset({"needs_review"})


class RememberResult(BaseModel):
    memory: MemoryView
    created: bool = Field(
        description="False: the text matched a live memory and was counted into it."
    )
    match: str | None = Field(description="How a merged write matched: exact or near.")
    outcome: str = Field(
        description="created, merged_exact, merged_near (a restatement, wording kept as a "
        "variant), superseded (a new value from the same source replaced the old memory) or "
        "flagged_conflict (a near match that says something else: a candidate for review)."
    )
    related_id: str | None = Field(
        description="The older memory a superseded write replaced or a flagged one may contradict."
    )
    reason: str | None = Field(description="Why a near match was judged so.")


ARCHIVED = "An archived memory (asked for with include_archived); the restore tool brings it back."


class ContextItemView(Compact):
    FULL_ONLY = frozenset({"components"})

    memory: MemoryView
    score: float
    components: dict[str, float] | None = Field(
        default=None,
        description="Each factor's contribution to the score; they sum to it (with full).",
    )
    archived: bool = Field(description=ARCHIVED)
    failure: CapsuleView | None = Field(
        default=None, description="For a lesson learned from a failure: the failure it explains."
    )
    path: domain.GraphPath | None = Field(
        default=None,
        description="The relation walked from a found memory to this one, when that is how "
        "it came.",
    )


class ContextView(BaseModel):
    context: str = Field(
        description="The memories as a text block to put in a prompt: the same text as "
        "GraphQL's knowledgeContext { context } and the prompt hook give."
    )
    items: list[ContextItemView] = Field(description="The same memories, best first.")
    notes: list[str]


class SearchHitView(Compact):
    FULL_ONLY = frozenset({"components", "retrievers"})

    memory: MemoryView
    score: float
    components: dict[str, float] | None = Field(
        default=None,
        description="Each factor's contribution to the score; they sum to it (with full).",
    )
    retrievers: list[domain.RetrieverHit] | None = Field(
        default=None,
        description="Which indexes found the memory and at what rank (feedback: a short "
        "query's candidates scored again with the words of its best hits); empty when "
        "only traversal reached it (with full).",
    )
    path: domain.GraphPath | None = Field(
        description="The relations walked from a found memory to this one."
    )
    replaces: list[str] = Field(description="Superseded memories this one stands in for.")
    archived: bool = Field(description=ARCHIVED)


class SearchView(BaseModel):
    hits: list[SearchHitView]
    retrievers: list[domain.Retriever] = Field(
        description="The indexes that ran, and feedback when it did."
    )
    notes: list[str]


class RelationView(BaseModel):
    type: kinds.RelationType
    from_id: str
    to_id: str
    rationale: str | None
    weight: float

    @classmethod
    def of(cls, relation: relations.Relation) -> RelationView:
        return cls(
            type=relation.type,
            from_id=relation.from_id,
            to_id=relation.to_id,
            rationale=relation.rationale,
            weight=relation.weight,
        )


class MemoriesView(BaseModel):
    memories: list[MemoryView] = Field(
        description="The memories found, in the order asked for; an id this project (or "
        "this agent) has no memory for is left out."
    )


class NeighborhoodView(BaseModel):
    center_id: str
    depth: int
    nodes: list[MemoryView] = Field(
        description="The centre first, then every memory within depth relations."
    )
    edges: list[RelationView] = Field(
        description="Every relation of the chosen types between two of the nodes."
    )
    truncated: bool = Field(description="More memories were in reach than the node limit allowed.")

    @classmethod
    def of(cls, hood: domain.Neighborhood) -> NeighborhoodView:
        return cls(
            center_id=hood.center_id,
            depth=hood.depth,
            nodes=[MemoryView.of(memory) for memory in hood.nodes],
            edges=[RelationView.of(relation) for relation in hood.edges],
            truncated=hood.truncated,
        )


class CapsuleView(BaseModel):
    id: str
    occurrence_count: int = Field(description="Reports of this failure so far.")
    tool: str | None
    error: str = Field(description="The error of the latest report.")
    fix: str | None
    session_ids: list[str]
    context_memory_ids: list[str]
    lesson_id: str | None = Field(description="The lesson_learned memory derived from it.")
    first_seen_at: str = Field(description="ISO-8601, UTC.")
    last_seen_at: str = Field(description="ISO-8601, UTC.")
    agent_id: str | None = Field(default=None, description="The agent of its first report.")
    visibility: kinds.Visibility = Field(
        default=kinds.Visibility.SHARED,
        description="private: only its agent reads it (and its lesson); shared: every agent.",
    )

    @classmethod
    def of(cls, capsule: capsules.FailureCapsule) -> CapsuleView:
        return cls(
            id=capsule.id,
            occurrence_count=capsule.occurrence_count,
            tool=capsule.tool,
            error=capsule.error,
            fix=capsule.fix,
            session_ids=capsule.session_ids,
            context_memory_ids=capsule.context_memory_ids,
            lesson_id=capsule.lesson_id,
            first_seen_at=_iso(capsule.first_seen_at) or "",
            last_seen_at=_iso(capsule.last_seen_at) or "",
            agent_id=capsule.agent_id,
            visibility=capsule.visibility,
        )


class FailureResult(BaseModel):
    capsule: CapsuleView
    created: bool = Field(
        description="False: the same failure was seen before and counted on its capsule."
    )
    lesson_status: str | None = Field(
        description="The lesson's status now: candidate (awaiting review) or active."
    )
    lesson: MemoryView | None = Field(
        description="The lesson learned from this failure (and its fix, once recorded)."
    )


class ForgetResult(BaseModel):
    id: str
    forgotten: bool


class ProjectsView(BaseModel):
    projects: list[str] = Field(
        description="The projects you may read that hold memories, sessions or settings, sorted."
    )


class SharingEventView(BaseModel):
    id: str
    memory_id: str
    kind: str = Field(description="shared, unshared or copied.")
    by: str = Field(description="The agent that did it, or admin.")
    to_visibility: kinds.Visibility | None
    to_project_id: str | None = Field(description="Where a copy went.")
    copy_id: str | None
    at: str = Field(description="ISO-8601, UTC.")

    @classmethod
    def of(cls, event: projects.SharingEvent) -> SharingEventView:
        return cls(
            id=event.id,
            memory_id=event.memory_id,
            kind=event.kind,
            by=event.by,
            to_visibility=event.to_visibility,
            to_project_id=event.to_project_id,
            copy_id=event.copy_id,
            at=_iso(event.at) or "",
        )


class SharingEventsView(BaseModel):
    events: list[SharingEventView]


class ReviewItemView(BaseModel):
    memory: MemoryView
    occurrences: int
    feedback: float = Field(description="The sum of the feedback values given.")
    age_seconds: float
    near_duplicates: list[str] = Field(description="Ids of live memories with close text.")


class ReviewView(BaseModel):
    items: list[ReviewItemView]
    next_cursor: str | None = Field(
        description="Pass as `after` for the next page; null on the last page."
    )


def context_view(result: domain.ContextResult) -> ContextView:
    return ContextView(
        context=result.prompt_block() or prompt.NOTHING,
        items=[
            ContextItemView(
                memory=MemoryView.of(item.memory),
                score=item.score,
                components={c.name: c.contribution for c in item.components},
                archived=item.archived,
                failure=CapsuleView.of(item.failure) if item.failure else None,
                path=item.path,
            )
            for item in result.items
        ],
        notes=list(result.notes),
    )


def search_view(result: domain.SearchResult) -> SearchView:
    return SearchView(
        hits=[
            SearchHitView(
                memory=MemoryView.of(hit.memory),
                score=hit.score,
                components={c.name: c.contribution for c in hit.explanation.components},
                retrievers=hit.explanation.retrievers,
                path=hit.explanation.path,
                replaces=hit.explanation.replaces,
                archived=hit.archived,
            )
            for hit in result.hits
        ],
        retrievers=list(result.retrievers),
        notes=list(result.notes),
    )


def review_view(page: review.ReviewPage) -> ReviewView:
    return ReviewView(
        items=[
            ReviewItemView(
                memory=MemoryView.of(item.memory),
                occurrences=item.occurrences,
                feedback=item.feedback,
                age_seconds=item.age_seconds,
                near_duplicates=item.near_duplicates,
            )
            for item in page.items
        ],
        next_cursor=page.end_cursor if page.has_next else None,
    )


def context_answer(result: domain.ContextResult, call: Called) -> CallToolResult:
    view = context_view(result)
    # A client that hands the model only text content gives it the block itself.
    return CallToolResult(
        content=[TextContent(type="text", text=view.context)],
        structured_content=dumped(view, full=call.arguments.get(FULL, True)),
    )


def answer(view: BaseModel | CallToolResult, *, full: bool) -> CallToolResult:
    """A tool's answer: its view as JSON without indentation, whole or compact."""
    if isinstance(view, CallToolResult):
        return view
    structured = dumped(view, full=full)
    text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def dumped(view: BaseModel, *, full: bool) -> dict[str, Any]:
    return view.model_dump(mode="json", context={FULL: full})


def compacts(view: Any, seen: frozenset[type] = frozenset()) -> bool:
    """Whether a tool's view holds a part that is compact unless asked for in
    full: the tools that offer the ``full`` parameter."""
    if isinstance(view, type) and issubclass(view, BaseModel):
        if issubclass(view, Compact):
            return True
        inner = seen | {view}
        return any(
            compacts(f.annotation, inner)
            for f in view.model_fields.values()
            if f.annotation not in inner
        )
    return any(compacts(arg, seen) for arg in get_args(view))


def memories_found(found: list[models.Memory | None], _: Called) -> MemoriesView:
    return MemoriesView(memories=[MemoryView.of(m) for m in found if m is not None])


def remembered(written: tuple[models.Memory, models.WriteOutcome], _: Called) -> RememberResult:
    memory, outcome = written
    return RememberResult(
        memory=MemoryView.of(memory),
        created=outcome.created,
        match=outcome.match,
        outcome=outcome.result.value,
        related_id=outcome.related_id,
        reason=outcome.reason,
    )


def forgotten(_: None, call: Called) -> ForgetResult:
    return ForgetResult(id=call.arguments["id"], forgotten=True)


def failure_recorded(outcome: capsules.FailureOutcome, call: Called) -> FailureResult:
    lesson = call.gm.get(outcome.lesson_id, project_id=call.project) if outcome.lesson_id else None
    return FailureResult(
        capsule=CapsuleView.of(outcome.capsule),
        created=outcome.created,
        lesson_status=outcome.lesson_status,
        lesson=MemoryView.of(lesson) if lesson else None,
    )


def sharing_events_view(events: list[projects.SharingEvent], _: Called) -> SharingEventsView:
    return SharingEventsView(events=[SharingEventView.of(event) for event in events])


def projects_readable(known: list[str], call: Called) -> ProjectsView:
    return ProjectsView(projects=readable(call.principal, known))
