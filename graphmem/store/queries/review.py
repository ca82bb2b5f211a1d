"""Review: the queues a person works through (candidates, memories marked for
review), their verdicts, evaluator evidence and the staging log; and the
undo of a curation, which takes a verdict back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.review import ReviewFilter, StagingEvent
from graphmem.store import Store
from graphmem.store.queries.memories import memories_of


@dataclass(frozen=True, slots=True)
class Merged:
    """A person's merge as written: the survivor as it now stands, and the
    signal its activation was logged with (``None`` when it did not activate)."""

    memory: Memory
    activated: str | None


@dataclass(frozen=True, slots=True)
class MergeEvent:
    """A merge's staging event, with what the merge added to its survivor."""

    id: str
    merged_from: str | None
    """The memory a person folded in; ``None`` for a write's merge."""
    signal: str | None
    occurrences: int | None
    """``None`` for a merge logged before merges kept what they added."""
    accesses: int | None
    feedback: float | None
    feedback_count: int | None
    added_evidence: list[str] | None
    added_tags: list[str] | None
    added_variants: list[str] | None
    content_key: str | None
    activated: str | None
    at: float


@dataclass(frozen=True, slots=True)
class MergeToUndo:
    """The newest merge into a memory not yet undone (``merge_to_undo``)."""

    event: MergeEvent
    unedited: bool
    """The survivor's text is still what it was right after the merge."""


def needs_review(store: Store, project_id: str, *, skip: int, limit: int) -> list[Memory]:
    """Memories marked for review, newest mark first, a page of them."""
    rows = store.read("needs_review", {"project_id": project_id, "skip": skip, "limit": limit})
    return memories_of(rows)


def queue(
    store: Store,
    flt: ReviewFilter,
    project_id: str,
    *,
    created_before: float | None,
    order: str,
    skip: int,
    limit: int,
) -> list[Memory]:
    """Candidates awaiting review passing ``flt``, ``oldest`` or most-``evidence`` first."""
    rows = store.read(
        "review_queue",
        {
            "project_id": project_id,
            "session_id": flt.session_id,
            "memory_type": flt.memory_type.value if flt.memory_type else None,
            "tags": flt.tags,
            "min_occurrences": flt.min_occurrences,
            "created_before": created_before,
            "order": order,
            "skip": skip,
            "limit": limit,
        },
    )
    return memories_of(rows)


def merge(
    store: Store,
    into_id: str,
    from_id: str,
    project_id: str,
    *,
    event_id: str,
    importance_fields: Mapping[str, Any],
    counts: tuple[int, int],
    signal: str | None,
    activation_id: str,
    now: float,
) -> Merged | None:
    """Fold ``from_id`` into ``into_id`` (archived, not deleted), the survivor
    rescored with ``importance_fields`` unless its ``counts`` (accesses,
    feedback) changed, and activated with ``signal`` when given; ``None`` when
    either is not there to merge."""
    access_count, feedback_count = counts
    rows = store.write(
        "merge_memories",
        {
            "into_id": into_id,
            "from_id": from_id,
            "project_id": project_id,
            "event_id": event_id,
            "importance_fields": importance_fields,
            "access_count": access_count,
            "feedback_count": feedback_count,
            "signal": signal,
            "activation_id": activation_id,
            "now": now,
        },
    )
    if not rows:
        return None
    return Merged(memory_from_fields(rows[0]["memory"]), rows[0]["activated"])


def set_evaluator_relevance(
    store: Store, memory_id: str, project_id: str, relevance: float, now: float
) -> Memory | None:
    """The memory with the evaluator's ``relevance`` kept (the strongest seen);
    ``None`` when there is no such memory."""
    rows = store.write(
        "set_evaluator_relevance",
        {"id": memory_id, "project_id": project_id, "relevance": relevance, "now": now},
    )
    found = memories_of(rows)
    return found[0] if found else None


def staging_events(store: Store, memory_id: str, project_id: str, limit: int) -> list[StagingEvent]:
    """The memory's staging log, newest first, at most ``limit`` steps."""
    rows = store.read(
        "staging_events", {"memory_id": memory_id, "project_id": project_id, "limit": limit}
    )
    return [
        StagingEvent.model_validate({k: v for k, v in row["event"].items() if v is not None})
        for row in rows
    ]


# -- undo ----------------------------------------------------------------------


def log_undo(
    store: Store,
    memory_id: str,
    project_id: str,
    *,
    event_id: str,
    curation: str,
    undone: str | None,
    reason: str,
    by: str,
    now: float,
) -> None:
    """Log the undo of ``curation`` on the memory: what it ``undone`` (ids), who and why."""
    store.write(
        "log_undo",
        {
            "memory_id": memory_id,
            "project_id": project_id,
            "event_id": event_id,
            "curation": curation,
            "undone": undone,
            "reason": reason,
            "by": by,
            "now": now,
        },
    )


def merge_to_undo(
    store: Store, survivor_id: str, from_id: str | None, project_id: str
) -> MergeToUndo | None:
    """The newest merge into ``survivor_id`` not yet undone (of ``from_id``, when
    given); ``None`` when there is none."""
    rows = store.read(
        "merge_to_undo", {"id": survivor_id, "from_id": from_id, "project_id": project_id}
    )
    if not rows:
        return None
    return MergeToUndo(MergeEvent(**rows[0]["event"]), rows[0]["unedited"])


def undo_merge(
    store: Store,
    into_id: str,
    from_id: str,
    project_id: str,
    *,
    event_id: str,
    importance_fields: Mapping[str, Any],
    reason: str,
    now: float,
) -> bool:
    """A person's merge taken back: ``from_id`` restored, the survivor giving up
    what it brought; whether it was (not when edited or undone meanwhile)."""
    rows = store.write(
        "undo_merge",
        {
            "into_id": into_id,
            "from_id": from_id,
            "event_id": event_id,
            "project_id": project_id,
            "importance_fields": importance_fields,
            "reason": reason,
            "now": now,
        },
    )
    return bool(rows)


def undo_write_merge(
    store: Store, survivor_id: str, part_id: str, project_id: str, *, event_id: str, now: float
) -> bool:
    """A write's merge taken back: the survivor gives up what ``part_id`` now
    holds; whether it was (not when edited or undone meanwhile)."""
    rows = store.write(
        "undo_write_merge",
        {
            "id": survivor_id,
            "part_id": part_id,
            "event_id": event_id,
            "project_id": project_id,
            "now": now,
        },
    )
    return bool(rows)


def undo_consolidation(
    store: Store,
    memory_id: str,
    project_id: str,
    *,
    archive_reason: str,
    archived_reason: str,
    count: int,
    by: str,
    reason: str,
    now: float,
) -> list[str] | None:
    """The ``count`` sources archived with ``archive_reason`` restored and the
    consolidated memory archived with ``archived_reason``; the ids restored, or
    ``None`` when it changed meanwhile."""
    rows = store.write(
        "undo_consolidation",
        {
            "id": memory_id,
            "project_id": project_id,
            "archive_reason": archive_reason,
            "archived_reason": archived_reason,
            "count": count,
            "by": by,
            "reason": reason,
            "now": now,
        },
    )
    return list(rows[0]["restored"]) if rows else None
