"""Operations of the review queue: candidates awaiting evidence, approved,
rejected or merged by a reviewer, and memories folded together by consolidation."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain import undo as undoing
from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.models import Memory, Page
from graphmem.domain.results import ConsolidationResult
from graphmem.domain.review import (
    BulkReviewResult,
    ReviewFilter,
    ReviewItem,
    ReviewPage,
    StagingEvent,
)
from graphmem.operations import documents as doc
from graphmem.operations.codec import encode, paged, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


class ReviewOperations:
    @operation(Role.READ)
    def review_queue(
        filter: ReviewFilter | Mapping[str, Any] | None = None,
        *,
        order: str = "oldest",
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> Call[ReviewPage]:
        """Candidates awaiting review, ``oldest`` or most-``evidence`` first."""
        if order not in ("oldest", "evidence"):
            raise InvalidInputError("order: must be 'oldest' or 'evidence'", field="order")
        document = """query($filter: ReviewFilter, $order: ReviewOrder!, $first: Int!,
                            $after: String, $p: ID) {
          reviewQueue(filter: $filter, order: $order, first: $first, after: $after,
                      projectId: $p) {
            edges { node { memory { ...M } occurrences feedback ageSeconds
                           nearDuplicates { id } } }
            pageInfo { hasNextPage endCursor }
          }
        }"""

        def item(node: dict[str, Any]) -> ReviewItem:
            near = [m["id"] for m in node["nearDuplicates"]]
            return read(ReviewItem, {**node, "nearDuplicates": near})

        def result(data: dict[str, Any]) -> ReviewPage:
            return paged(ReviewPage, data["reviewQueue"], item)

        variables = {
            "filter": encode(parse(ReviewFilter, filter)) if filter is not None else None,
            "order": order.upper(),
            "first": first,
            "after": after,
            "p": project_id,
        }
        return Call(document + doc.MEMORY, variables, result)

    @operation(Role.WRITE, "approveCandidate")
    def approve(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        return doc.memory_mutation("approveCandidate", memory_id, project_id)

    @operation(Role.WRITE, "rejectCandidate")
    def reject(memory_id: str, reason: str, *, project_id: str | None = None) -> Call[Memory]:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        document = """mutation($id: ID!, $reason: String!, $p: ID) {
          rejectCandidate(id: $id, reason: $reason, projectId: $p) { ...M }
        }"""
        variables = {"id": memory_id, "reason": reason, "p": project_id}
        return doc.memory_call(document, "rejectCandidate", variables)

    @operation(Role.READ)
    def needs_review(
        *, first: int = 20, after: str | None = None, project_id: str | None = None
    ) -> Call[Page]:
        """Memories marked as needing review because a memory they rest on (by
        ENABLES or CONSTRAINS) stopped being current, newest mark first; each
        memory's ``review_mark`` says what changed and the path to it."""
        document = """query($first: Int!, $after: String, $p: ID) {
          needsReview(first: $first, after: $after, projectId: $p) {
            edges { node { ...M } }
            pageInfo { hasNextPage endCursor }
          }
        }"""

        def result(data: dict[str, Any]) -> Page:
            return paged(Page, data["needsReview"], lambda node: read(Memory, node))

        return Call(
            document + doc.MEMORY, {"first": first, "after": after, "p": project_id}, result
        )

    @operation(Role.WRITE, "confirmMemory")
    def confirm(
        memory_id: str, reason: str | None = None, *, project_id: str | None = None
    ) -> Call[Memory]:
        """A reviewer says a marked memory still holds: its mark goes, logged with ``reason``."""
        document = """mutation($id: ID!, $reason: String, $p: ID) {
          confirmMemory(id: $id, reason: $reason, projectId: $p) { ...M }
        }"""
        variables = {"id": memory_id, "reason": reason, "p": project_id}
        return doc.memory_call(document, "confirmMemory", variables)

    @operation(Role.WRITE, "undo", attributed="by")
    def undo(
        curation: undoing.Curation | str,
        memory_id: str,
        *,
        reason: str,
        by: str = "api",
        project_id: str | None = None,
    ) -> Call[undoing.UndoResult]:
        """Take back a curation of ``memory_id``, logged with who (``by``) and why:
        ``merge`` (the newest merge into it, or by the merged-away memory's id the
        merge that took it), ``supersede``, ``consolidation``, ``archive``,
        ``rejection`` or ``mark``. Refused with what blocks it where a later change
        rests on it (docs/undo.md)."""
        document = """mutation($c: Curation!, $id: ID!, $reason: String!, $by: String, $p: ID) {
          undo(curation: $c, id: $id, reason: $reason, by: $by, projectId: $p) {
            curation memoryId restored created archived
          }
        }"""
        variables = {
            "c": undoing.curation_of(curation).name,
            "id": memory_id,
            "reason": reason,
            "by": by,
            "p": project_id,
        }

        def result(data: dict[str, Any]) -> undoing.UndoResult:
            found = data["undo"]
            return read(undoing.UndoResult, {**found, "curation": found["curation"].lower()})

        return Call(document, variables, result)

    @operation(Role.ADMIN, "checkExpired", whole_project=True)
    def check_expired(*, project_id: str | None = None) -> Call[builtins.list[str]]:
        """Mark what rests on memories whose ``valid_to`` passed since the last
        check (the scheduler runs it with archival); returns the ids marked."""
        return Call(
            "mutation($p: ID) { checkExpired(projectId: $p) }",
            {"p": project_id},
            lambda data: [str(i) for i in data["checkExpired"]],
        )

    @operation(Role.WRITE)
    def merge_memories(
        into_id: str, from_id: str, *, project_id: str | None = None
    ) -> Call[Memory]:
        """Fold ``from_id`` into ``into_id``; the absorbed memory is archived, not deleted."""
        document = """mutation($into: ID!, $from: ID!, $p: ID) {
          mergeMemories(intoId: $into, fromId: $from, projectId: $p) { ...M }
        }"""
        variables = {"into": into_id, "from": from_id, "p": project_id}
        return doc.memory_call(document, "mergeMemories", variables)

    @operation(Role.ADMIN, whole_project=True)
    def bulk_review(
        filter: ReviewFilter | Mapping[str, Any] | None,
        action: str,
        *,
        reason: str | None = None,
        dry_run: bool = True,
        project_id: str | None = None,
    ) -> Call[BulkReviewResult]:
        """Approve or reject every candidate the filter selects; a dry run by default."""
        if action not in ("approve", "reject"):
            raise InvalidInputError("action: must be 'approve' or 'reject'", field="action")
        document = """mutation($action: ReviewAction!, $filter: ReviewFilter, $reason: String,
                               $dry: Boolean!, $p: ID) {
          bulkReview(action: $action, filter: $filter, reason: $reason, dryRun: $dry,
                     projectId: $p) { action dryRun matched applied }
        }"""

        def result(data: dict[str, Any]) -> BulkReviewResult:
            found = data["bulkReview"]
            return read(BulkReviewResult, {**found, "action": found["action"].lower()})

        variables = {
            "action": action.upper(),
            "filter": encode(parse(ReviewFilter, filter)) if filter is not None else None,
            "reason": reason,
            "dry": dry_run,
            "p": project_id,
        }
        return Call(document, variables, result)

    @operation(Role.READ)
    def staging_events(
        memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> Call[builtins.list[StagingEvent]]:
        document = """query($m: ID!, $limit: Int!, $p: ID) {
          stagingEvents(memoryId: $m, limit: $limit, projectId: $p) {
            id memoryId kind signal before after similarity mergedFrom by at
          }
        }"""
        variables = {"m": memory_id, "limit": limit, "p": project_id}
        return Call(
            document,
            variables,
            lambda data: [read(StagingEvent, e) for e in data["stagingEvents"]],
        )

    @operation(Role.ADMIN, whole_project=True)
    def consolidate(
        *,
        dry_run: bool = False,
        fingerprints: Sequence[str] | None = None,
        project_id: str | None = None,
    ) -> Call[ConsolidationResult]:
        """Write one consolidated memory per group of related memories, superseding
        and archiving the group (``restore`` brings a source back); ``dry_run``
        shows the groups and writes nothing. ``fingerprints``: only these groups
        of a dry run, each skipped with a note if it changed since."""
        document = """mutation($dry: Boolean!, $f: [String!], $p: ID) {
          consolidate(dryRun: $dry, fingerprints: $f, projectId: $p) {
            projectId dryRun scanned eligible notes
            groups { fingerprint content seen reason members { ...M } }
            consolidated { memoryId sourceIds fingerprint }
          }
        }"""
        variables = {
            "dry": dry_run,
            "f": None if fingerprints is None else list(fingerprints),
            "p": project_id,
        }
        return Call(
            document + doc.MEMORY,
            variables,
            lambda data: read(ConsolidationResult, data["consolidate"]),
        )
