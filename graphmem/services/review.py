"""Review of candidates: the queue a person works through, their verdicts
(approve, reject, merge, in bulk), evaluator evidence and the staging log.

Automatic activation lives in ``staging``; this is where people and the
evaluator weigh in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphmem.domain.checks import MAX_PAGE_SIZE, check_between, check_text, parse
from graphmem.domain.cursors import decode_offset, encode_offset
from graphmem.domain.errors import ConflictError, InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Status, Tier
from graphmem.domain.models import Memory, Page
from graphmem.domain.review import (
    BulkReviewResult,
    ReviewFilter,
    ReviewItem,
    ReviewPage,
    StagingEvent,
)
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.memories import Memories, missing, readable_references, unreadable
from graphmem.services.staging import Evidence, Signal, Stager, earned_signal
from graphmem.store.queries import review

MAX_REASON_CHARS = 500
"""A reviewer's reason (a rejection's, a confirmation's)."""
REJECTED = "rejected: "
"""How a rejection's archive reason starts, before the reviewer's reason (undo reads it)."""

NearDuplicateFinder = Callable[[Memory], list[str]]
"""Ids of live memories whose text is close to a memory's (shown beside a candidate)."""


class Review(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        stager: Stager,
        memories: Memories,
    ) -> None:
        super().__init__(basics)
        self.stager = stager
        self.memories = memories
        self.cascade = Cascade(basics)

    def needs_review(self, *, first: int, after: str | None, project_id: str) -> Page:
        """The memories marked as needing review (what they rest on changed),
        newest mark first."""
        if not 1 <= first <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"first: 1-{MAX_PAGE_SIZE}", field="first")
        skip = decode_offset(after) if after else 0
        found = review.needs_review(self.store, project_id, skip=skip, limit=first + 1)
        items = self.memories.readable_references(found[:first])
        return Page(
            items=items,
            has_next=len(found) > first,
            end_cursor=encode_offset(skip + len(items)) if items else None,
        )

    def confirm(self, memory_id: str, reason: str | None, *, project_id: str) -> Memory:
        """A reviewer says a marked memory still holds: the mark goes, logged with the reason."""
        if reason is not None:
            reason = check_text("reason", reason.strip(), max_chars=MAX_REASON_CHARS) or None
        memory = self.memories.get(memory_id, project_id=project_id)
        if memory.review_change is None:
            raise ConflictError(f"id: memory {memory_id!r} is not marked for review", field="id")
        self.cascade.clear([memory_id], [], "confirmed", reason, project_id)
        return self.memories.get(memory_id, project_id=project_id)

    def queue(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None,
        *,
        order: str,
        first: int,
        after: str | None,
        project_id: str,
        near_duplicates: NearDuplicateFinder | None = None,
    ) -> ReviewPage:
        """Candidates awaiting review, ``oldest`` or most-``evidence`` first."""
        flt = parse(ReviewFilter, filter or {})
        if order not in ("oldest", "evidence"):
            raise InvalidInputError("order: must be 'oldest' or 'evidence'", field="order")
        check_between("first", first, 1, MAX_PAGE_SIZE)
        skip = decode_offset(after) if after else 0
        now = self._now()
        found = review.queue(
            self.store,
            flt,
            project_id,
            created_before=None if flt.older_than_seconds is None else now - flt.older_than_seconds,
            order=order,
            skip=skip,
            limit=first + 1,
        )
        shown = readable_references(self.store, found[:first])
        items = [
            ReviewItem(
                memory=memory,
                occurrences=memory.occurrence_count,
                feedback=memory.feedback,
                age_seconds=max(0.0, now - memory.created_at),
                near_duplicates=near_duplicates(memory) if near_duplicates else [],
            )
            for memory in shown
        ]
        has_next = len(found) > first
        return ReviewPage(
            items=items,
            has_next=has_next,
            end_cursor=encode_offset(skip + len(items)) if items else None,
        )

    def approve(self, memory_id: str, *, project_id: str) -> Memory:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        memory = self.memories.get(memory_id, project_id=project_id)
        if memory.tier is Tier.ARCHIVED:
            raise ConflictError(
                f"id: memory {memory_id!r} is archived; restore it first", field="id"
            )
        return self.memories.activate(memory, Signal.APPROVE, project_id=project_id)

    def reject(self, memory_id: str, reason: str, *, project_id: str) -> Memory:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        reason = (reason or "").strip()
        if not 1 <= len(reason) <= 500:
            raise InvalidInputError("reason: 1-500 characters", field="reason")
        reason = check_text("reason", reason, max_chars=500)
        memory = self.memories.get(memory_id, project_id=project_id)
        if memory.status is not Status.CANDIDATE or memory.tier is Tier.ARCHIVED:
            raise ConflictError(f"id: memory {memory_id!r} is not a live candidate", field="id")
        self.stager.reject([memory_id], REJECTED + reason, project_id=project_id)
        return self.memories.get(memory_id, project_id=project_id)

    def merge(self, into_id: str, from_id: str, *, project_id: str) -> Memory:
        """Fold ``from_id`` into ``into_id``; the absorbed memory is archived, not deleted."""
        if into_id == from_id:
            raise InvalidInputError("from_id: cannot merge a memory into itself", field="from_id")
        project = project_id
        pair = self.memories.get_many([into_id, from_id], project_id=project)
        for field, memory_id, memory in zip(
            ("into_id", "from_id"), (into_id, from_id), pair, strict=True
        ):
            if memory is None:
                raise missing(memory_id, project, field=field)
            if memory.tier is Tier.ARCHIVED:
                raise ConflictError(f"{field}: memory {memory_id!r} is archived", field=field)
        into, absorbed = pair
        assert into is not None and absorbed is not None
        now = self._now()
        # The survivor's new score and any activation it earns are worked out
        # here and written by the same statement as the merge: all or nothing.
        survivor = into.model_copy(
            update={
                "occurrence_count": into.occurrence_count + absorbed.occurrence_count,
                "access_count": into.access_count + absorbed.access_count,
                "feedback": into.feedback + absorbed.feedback,
                "feedback_count": into.feedback_count + absorbed.feedback_count,
                "last_seen": now,
            }
        )
        signal = earned_signal(Evidence.of(survivor), self.rules)
        merged = review.merge(
            self.store,
            into_id,
            from_id,
            project,
            event_id=new_id(),
            importance_fields=self.scorer.stored_fields(survivor, now),
            counts=(survivor.access_count, survivor.feedback_count),
            signal=signal.value if signal else None,
            activation_id=new_id(),
            now=now,
        )
        if merged is None:
            raise missing(from_id, project, field="from_id")
        if merged.activated:
            self.stager.activated([(into_id, Signal(merged.activated))], project_id=project)
        return self.memories.get(into_id, project_id=project)

    def bulk(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None,
        action: str,
        *,
        reason: str | None,
        dry_run: bool,
        project_id: str,
    ) -> BulkReviewResult:
        """Approve or reject every candidate the filter selects; a dry run by default."""
        if action not in ("approve", "reject"):
            raise InvalidInputError("action: must be 'approve' or 'reject'", field="action")
        if action == "reject" and not (reason or "").strip():
            raise InvalidInputError("reason: a bulk reject needs a reason", field="reason")
        if reason is not None:  # the same limit as one rejection's reason
            reason = check_text("reason", reason.strip(), max_chars=500)
        matched: list[str] = []
        after = None
        while True:
            page = self.queue(
                filter, order="oldest", first=MAX_PAGE_SIZE, after=after, project_id=project_id
            )
            matched += [item.memory.id for item in page.items]
            if not page.has_next:
                break
            after = page.end_cursor
        applied: list[str] = []
        if not dry_run and matched:
            if action == "approve":
                applied = self.stager.activate(
                    [(memory_id, Signal.APPROVE) for memory_id in matched], project_id=project_id
                )
            else:
                assert reason is not None
                applied = self.stager.reject(
                    matched, REJECTED + reason.strip(), project_id=project_id
                )
        return BulkReviewResult(action=action, dry_run=dry_run, matched=matched, applied=applied)

    def record_evidence(self, memory_id: str, relevance: float, *, project_id: str) -> Memory:
        """Evaluator relevance evidence for a memory, in [0, 1]; may activate a candidate.

        The consistency evaluator reports through this one call; the strongest
        evidence seen is kept.
        """
        if not 0.0 <= relevance <= 1.0 or relevance != relevance:
            raise InvalidInputError("relevance: must be between 0 and 1", field="relevance")
        memory = review.set_evaluator_relevance(
            self.store, memory_id, project_id, relevance, self._now()
        )
        if memory is None:
            raise missing(memory_id, project_id)
        if self.stager.activate_earned([memory], project_id=project_id):
            return self.memories.get(memory_id, project_id=project_id)
        return memory

    def staging_events(self, memory_id: str, *, limit: int, project_id: str) -> list[StagingEvent]:
        check_between("limit", limit, 1, MAX_PAGE_SIZE)
        events = review.staging_events(self.store, memory_id, project_id, limit)
        # A merge names the memory it folded in only to those who may read it.
        hidden = unreadable(
            self.store, {e.merged_from for e in events if e.merged_from is not None}
        )
        return [
            e.model_copy(update={"merged_from": None}) if e.merged_from in hidden else e
            for e in events
        ]
