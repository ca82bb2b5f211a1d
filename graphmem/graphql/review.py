"""Candidate review: the queue of candidates awaiting a person, the decisions on
them (approve, reject, merge, in bulk), and each memory's staging log.

Rejecting and merging archive; nothing here deletes, so every decision can be
looked at again (``memories(filter: {includeArchived: true})``, ``restore``).
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Annotated

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.relay import PageInfo

from graphmem.domain import kinds, review
from graphmem.domain import undo as undoing
from graphmem.domain.cursors import decode_offset, encode_offset
from graphmem.graphql.errors import parse_input
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info, domain_default
from graphmem.graphql.types.memory import Memory, MemoryConnection, MemoryEdge, StagingEvent
from graphmem.operations.access import attribution


@strawberry.enum(
    description="Review queue order: OLDEST written first, or most EVIDENCE "
    "(occurrences plus net positive feedback) first."
)
class ReviewOrder(StrEnum):
    OLDEST = "oldest"
    EVIDENCE = "evidence"


@strawberry.enum(description="A reviewer's decision on a candidate.")
class ReviewAction(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


strawberry.enum(undoing.Curation, description="A curation an undo takes back.")


@strawberry.type(description="What an undo changed.")
class UndoResult:
    curation: undoing.Curation
    memory_id: strawberry.ID = strawberry.field(description="The memory the undo was asked of.")
    restored: list[strawberry.ID] = strawberry.field(
        description="Memories current again: an unmerged memory, a consolidation's sources, "
        "a restored or no longer superseded memory."
    )
    created: list[strawberry.ID] = strawberry.field(
        description="A write's merged part, written as a memory of its own."
    )
    archived: list[strawberry.ID] = strawberry.field(
        description="An undone consolidation's memory, archived."
    )

    @classmethod
    def of(cls, done: undoing.UndoResult) -> UndoResult:
        return cls(
            curation=done.curation,
            memory_id=strawberry.ID(done.memory_id),
            restored=[strawberry.ID(i) for i in done.restored],
            created=[strawberry.ID(i) for i in done.created],
            archived=[strawberry.ID(i) for i in done.archived],
        )


@strawberry.input(description="Which candidates to review; every field given must match.")
class ReviewFilter:
    session_id: strawberry.ID | None = None
    memory_type: kinds.MemoryType | None = None
    tags: list[str] = strawberry.field(
        default_factory=list, description="Candidates carrying every one of these tags."
    )
    min_occurrences: int = domain_default(review.ReviewFilter, "min_occurrences")
    older_than_seconds: float | None = strawberry.field(
        default=None, description="Only candidates written at least this long ago."
    )


def _parsed(filter: ReviewFilter | None) -> review.ReviewFilter | None:
    if filter is None:
        return None
    return parse_input(review.ReviewFilter, dataclasses.asdict(filter), "filter")


@strawberry.type(description="A candidate and the evidence a reviewer weighs.")
class ReviewItem:
    near_duplicate_ids: strawberry.Private[list[str]]
    memory: Memory
    occurrences: int = strawberry.field(description="How often the same thing was written.")
    feedback: float = strawberry.field(description="The sum of all feedback values given.")
    age_seconds: float

    @classmethod
    def of(cls, item: review.ReviewItem) -> ReviewItem:
        return cls(
            near_duplicate_ids=item.near_duplicates,
            memory=Memory.of(item.memory),
            occurrences=item.occurrences,
            feedback=item.feedback,
            age_seconds=item.age_seconds,
        )

    @strawberry.field(description="Live memories whose text is close to this one's.")
    async def near_duplicates(self, info: Info) -> list[Memory]:
        loader = info.context.loaders.memories(self.memory.model.project_id)
        found = await loader.load_many(self.near_duplicate_ids)
        return [Memory.of(memory) for memory in found if memory]


@strawberry.type(description="A candidate in a page of the review queue.")
class ReviewEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this item.")
    node: ReviewItem


@strawberry.type(description="A page of the review queue.")
class ReviewConnection:
    edges: list[ReviewEdge]
    page_info: PageInfo


@strawberry.type(description="What a bulk review selected and, unless a dry run, changed.")
class BulkReviewResult:
    action: ReviewAction
    dry_run: bool
    matched: list[strawberry.ID] = strawberry.field(description="Candidates the filter selected.")
    applied: list[strawberry.ID] = strawberry.field(
        description="Those the action changed; empty in a dry run."
    )

    @classmethod
    def of(cls, result: review.BulkReviewResult) -> BulkReviewResult:
        return cls(
            action=ReviewAction(result.action),
            dry_run=result.dry_run,
            matched=[strawberry.ID(memory_id) for memory_id in result.matched],
            applied=[strawberry.ID(memory_id) for memory_id in result.applied],
        )


def _positions(
    after: str | None, count: int, has_next: bool, end_cursor: str | None
) -> tuple[list[str], PageInfo]:
    """The cursors of a page of ``count`` items after ``after`` and its page info:
    cursors are positions in the list (the API checked ``after`` already)."""
    start = decode_offset(after) if after else 0
    cursors = [encode_offset(start + n) for n in range(1, count + 1)]
    page_info = PageInfo(
        has_next_page=has_next,
        has_previous_page=start > 0,
        start_cursor=cursors[0] if cursors else None,
        end_cursor=end_cursor,
    )
    return cursors, page_info


@strawberry.type
class ReviewQuery:
    @strawberry.field(description="Candidates awaiting review, a page at a time.")
    async def review_queue(
        self,
        info: Info,
        filter: ReviewFilter | None = None,
        order: ReviewOrder = ReviewOrder.OLDEST,
        first: int = 20,
        after: str | None = None,
        project_id: ProjectId = None,
    ) -> ReviewConnection:
        page = await run_in_threadpool(
            info.context.gm.review_queue,
            _parsed(filter),
            order=order.value,
            first=first,
            after=after,
            project_id=project_id,
        )
        cursors, page_info = _positions(after, len(page.items), page.has_next, page.end_cursor)
        edges = [
            ReviewEdge(cursor=c, node=ReviewItem.of(item))
            for c, item in zip(cursors, page.items, strict=True)
        ]
        return ReviewConnection(edges=edges, page_info=page_info)

    @strawberry.field(
        description="Memories marked as needing review because a memory they rest on (by "
        "ENABLES or CONSTRAINS) stopped being current, newest mark first; reviewReason says "
        "what changed. confirmMemory, supersede or archiveMemory settles each."
    )
    async def needs_review(
        self, info: Info, first: int = 20, after: str | None = None, project_id: ProjectId = None
    ) -> MemoryConnection:
        page = await run_in_threadpool(
            info.context.gm.needs_review, first=first, after=after, project_id=project_id
        )
        cursors, page_info = _positions(after, len(page.items), page.has_next, page.end_cursor)
        edges = [
            MemoryEdge(cursor=c, node=Memory.of(memory))
            for c, memory in zip(cursors, page.items, strict=True)
        ]
        return MemoryConnection(edges=edges, page_info=page_info)

    @strawberry.field(description="A memory's staging log, newest first.")
    async def staging_events(
        self,
        info: Info,
        memory_id: strawberry.ID,
        limit: int = 50,
        project_id: ProjectId = None,
    ) -> list[StagingEvent]:
        events = await run_in_threadpool(
            info.context.gm.staging_events, memory_id, limit=limit, project_id=project_id
        )
        return [StagingEvent.of(event) for event in events]


@strawberry.type
class ReviewMutation:
    @strawberry.mutation(
        description="A reviewer's confirmation: the candidate becomes active "
        "(an active memory stays as it is)."
    )
    async def approve_candidate(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.approve, id, project_id=project_id))

    @strawberry.mutation(
        description="Archive a candidate with the reviewer's reason; it stays retrievable."
    )
    async def reject_candidate(
        self, info: Info, id: strawberry.ID, reason: str, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await write(info, gm.reject, id, reason, project_id=project_id))

    @strawberry.mutation(
        description="A reviewer says a memory marked for review still holds: the mark goes, "
        "logged with the reason (a stagingEvents entry, kind confirmed)."
    )
    async def confirm_memory(
        self, info: Info, id: strawberry.ID, reason: str | None = None, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await write(info, gm.confirm, id, reason, project_id=project_id))

    @strawberry.mutation(
        description="Take back a curation of a memory, logged with who and why (a "
        "stagingEvents entry, kind undone): MERGE (the newest merge into it, or, by the "
        "id of a memory merged away, the merge that took it; a write's merge becomes a "
        "memory of its own), SUPERSEDE, CONSOLIDATION (the sources come back, the "
        "consolidated memory is archived), ARCHIVE, REJECTION or MARK. The marks the "
        "change left go with it. CONFLICT, naming what blocks it, where a later change "
        "rests on it."
    )
    async def undo(
        self,
        info: Info,
        curation: undoing.Curation,
        id: strawberry.ID,
        reason: str,
        by: Annotated[
            str | None,
            strawberry.argument(description="Who undoes it; the caller's API key when absent."),
        ] = None,
        project_id: ProjectId = None,
    ) -> UndoResult:
        done = await write(
            info,
            info.context.gm.undo,
            curation,
            id,
            reason=reason,
            by=attribution(by, info.context.principal, "graphql"),
            project_id=project_id,
        )
        return UndoResult.of(done)

    @strawberry.mutation(
        description="Mark what rests on memories whose validTo passed since the last check "
        "(the scheduler runs it with archival); returns the ids marked."
    )
    async def check_expired(self, info: Info, project_id: ProjectId = None) -> list[strawberry.ID]:
        ids = await write(info, info.context.gm.check_expired, project_id=project_id)
        return [strawberry.ID(i) for i in ids]

    @strawberry.mutation(
        description="Fold fromId into intoId (counts add up, tags and evidence unite); "
        "fromId is archived pointing at intoId. Returns the merged memory."
    )
    async def merge_memories(
        self,
        info: Info,
        into_id: strawberry.ID,
        from_id: strawberry.ID,
        project_id: ProjectId = None,
    ) -> Memory | None:
        gm = info.context.gm
        merged = await write(info, gm.merge_memories, into_id, from_id, project_id=project_id)
        return Memory.of(merged)

    @strawberry.mutation(
        description="Approve or reject every candidate the filter selects; a dry run "
        "(the default) only lists them. Rejecting needs a reason."
    )
    async def bulk_review(
        self,
        info: Info,
        action: ReviewAction,
        filter: ReviewFilter | None = None,
        reason: str | None = None,
        dry_run: bool = True,
        project_id: ProjectId = None,
    ) -> BulkReviewResult | None:
        result = await write(
            info,
            info.context.gm.bulk_review,
            _parsed(filter),
            action.value,
            reason=reason,
            dry_run=dry_run,
            project_id=project_id,
        )
        return BulkReviewResult.of(result)
