"""One remember batch as the writer assembles it: the rows it creates, the merges
it counts into live memories, each item's outcome, and what the batch left
written. Plain data and checks, so the writer and the near-match judge
(``graphmem.services.near_matches``) share one account of the batch."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphmem.domain.analysis import indexed_fields
from graphmem.domain.checks import check_not_future, check_validity
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import MemoryType, SuggestedBy, initial_status
from graphmem.domain.models import (
    Memory,
    MemoryInput,
    WriteOutcome,
    WriteResult,
    memory_from_fields,
)
from graphmem.domain.scoring import ImportanceScorer, ScoreInputs
from graphmem.domain.sessions import DEFAULT_SESSION
from graphmem.store.queries.memories import SameText

M = TypeVar("M", bound=Mapping[str, Any])


@dataclass
class Written:
    """What a batch write did: each item's outcome, and the fields of the memories it
    wrote as the pipeline left them (none for a memory changed after the write)."""

    outcomes: list[WriteOutcome]
    fields: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    def memory(self, memory_id: str) -> Memory | None:
        """The memory as written, or ``None`` when only a read can tell."""
        known = self.fields.get(memory_id)
        return memory_from_fields(known) if known is not None else None

    def changed(self, memory_ids: Iterable[str]) -> None:
        """Memories a later step (activation, promotion) changed since the write."""
        for memory_id in memory_ids:
            self.fields.pop(memory_id, None)


def new_row(
    item: MemoryInput, project: str, now: float, scorer: ImportanceScorer
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": new_id(),
        "project_id": project,
        "session_id": item.session_id or DEFAULT_SESSION,
        "content": item.content,
        "tier": item.tier.value,
        "status": initial_status(item.source).value,
        "confidence": item.confidence,
        "access_count": 0,
        "occurrence_count": 1,
        "feedback": 0,
        "feedback_count": 0,
        "pinned": item.pinned,
        "source": item.source.value,
        "suggested_by": item.suggested_by.value,
        "tags": item.tags,
        "evidence": item.evidence,
        "created_at": now,
        "occurred_at": now if item.occurred_at is None else item.occurred_at,
        "updated_at": now,
    }
    row["valid_from"] = row["occurred_at"] if item.valid_from is None else item.valid_from
    if item.valid_to is not None:
        row["valid_to"] = item.valid_to
    if item.memory_type is not None:
        row["memory_type"] = item.memory_type.value
    if item.self_assessment is not None:
        row["self_assessment"] = item.self_assessment.value
    if item.rationale is not None:
        row["rationale"] = item.rationale
    if item.agent_id is not None:
        row["agent_id"] = item.agent_id
    if item.visibility is not None:
        row["visibility"] = item.visibility.value
    row.update(
        indexed_fields(project, item.agent_id, row.get("visibility"), item.content, item.rationale)
    )
    agent_decision = item.suggested_by is SuggestedBy.AGENT
    if item.occurred_at is None or item.occurred_at >= now:
        fields = scorer.fresh_fields(
            item.memory_type,
            item.confidence,
            item.self_assessment,
            agent_decision=agent_decision,
        )
    else:  # an event of the past is as old as it is, not as old as its write
        inputs = ScoreInputs(
            memory_type=item.memory_type,
            confidence=item.confidence,
            access_count=0,
            last_used_at=item.occurred_at,
            self_assessment=item.self_assessment,
            agent_decision=agent_decision,
        )
        fields = scorer.stored_fields(inputs, now)
    row.update(fields)
    return row


def check_occurred_at(inputs: Sequence[MemoryInput], now: float) -> None:
    """No item may have happened later than a small clock skew past ``now``."""
    for index, item in enumerate(inputs):
        for name in ("occurred_at", "valid_from"):
            value = getattr(item, name)
            if value is not None:
                field = name if len(inputs) == 1 else f"items[{index}].{name}"
                check_not_future(value, now, field=field)


def check_valid_span(inputs: Sequence[MemoryInput], now: float) -> None:
    """No item's validity may end before it begins: ``valid_from``, else
    ``occurred_at``, else the write (an end in the past needs a start given)."""
    for index, item in enumerate(inputs):
        if item.valid_to is None:
            continue
        start = next(t for t in (item.valid_from, item.occurred_at, now) if t is not None)
        field = "valid_to" if len(inputs) == 1 else f"items[{index}].valid_to"
        check_validity(start, item.valid_to, field=field)


def repeats(
    memory_type: str | None, occurred_at: float | None, event: bool, when: float, window: float
) -> bool:
    """Whether an item repeats a memory with the same text: a claim repeats a
    claim; an event only an event of the same moment (two "Haha" a day apart
    are two turns)."""
    if (memory_type == MemoryType.EVENT.value) != event:
        return False
    return not event or abs((occurred_at or 0.0) - when) <= window


def repeated(known: Sequence[M], event: bool, when: float, window: float) -> M | None:
    """The first row of the batch with the same text that an item repeats (``repeats``)."""
    for other in known:
        if repeats(other.get("memory_type"), other.get("occurred_at"), event, when, window):
            return other
    return None


def repeated_live(known: Sequence[SameText], event: bool, when: float, window: float) -> str | None:
    """The id of the first live memory with the same text that an item repeats."""
    for other in known:
        if repeats(other.memory_type, other.occurred_at, event, when, window):
            return other.id
    return None


def replace(outcomes: list[WriteOutcome], row_id: str, outcome: WriteOutcome) -> None:
    for n, known in enumerate(outcomes):
        if known.id == row_id:
            outcomes[n] = outcome


def exact(memory_id: str) -> WriteOutcome:
    """An item counted into the live memory with its normalised text."""
    return WriteOutcome(id=memory_id, created=False, match="exact", result=WriteResult.MERGED_EXACT)


def merge_into(
    merges: dict[str, dict[str, Any]],
    memory_id: str,
    occurrences: int,
    evidence: Iterable[str],
    tags: Iterable[str],
) -> dict[str, Any]:
    """The batch's merge into ``memory_id``, counting one more item into it."""
    merge = merges.setdefault(
        memory_id, {"id": memory_id, "occurrences": 0, "evidence": [], "tags": []}
    )
    merge["occurrences"] += occurrences
    merge["evidence"] = union(merge["evidence"], evidence)
    merge["tags"] = union(merge["tags"], tags)
    return merge


def union(first: list[str], more: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *more]))
