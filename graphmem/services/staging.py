"""Candidate staging: auto-extracted memories earn their way into injected context.

Extraction stays fast and permissive (anything may be written, as a
candidate); trust is earned by deterministic signals: the same thing written
again (recurrence), positive feedback or evaluator evidence, or a person's
confirmation. Every status change is logged and happens at most once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Status
from graphmem.domain.models import Memory
from graphmem.domain.retention import RetentionRules
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.store.queries import lifecycle, memories
from graphmem.store.queries.memories import SameText


class Signal(StrEnum):
    """Why a candidate became active."""

    RECURRENCE = "recurrence"
    FEEDBACK = "feedback"
    EVALUATOR = "evaluator"
    FIX = "fix"
    """A fix was recorded for the failure a lesson was learned from."""
    PIN = "manual:pin"
    EDIT = "manual:edit"
    APPROVE = "manual:approve"


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a candidate has accumulated towards activation."""

    memory_id: str
    status: str
    occurrence_count: int = 1
    feedback: float = 0.0
    evaluator_relevance: float | None = None

    @classmethod
    def of(cls, memory: Memory) -> Evidence:
        return cls(
            memory.id,
            memory.status.value,
            memory.occurrence_count,
            memory.feedback,
            memory.evaluator_relevance,
        )


def earned_signal(evidence: Evidence, rules: RetentionRules) -> Signal | None:
    """The automatic signal a candidate has accumulated, if any (pure)."""
    if evidence.status != Status.CANDIDATE.value:
        return None
    if evidence.occurrence_count >= rules.recurrence_threshold:
        return Signal.RECURRENCE
    if evidence.feedback >= rules.feedback_threshold:
        return Signal.FEEDBACK
    if evidence.evaluator_relevance is not None and (
        evidence.evaluator_relevance >= rules.relevance_threshold
    ):
        return Signal.EVALUATOR
    return None


class Stager(Service):
    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self.cascade = Cascade(basics)

    def exact_duplicates(
        self, keys: Sequence[str], *, project_id: str
    ) -> dict[str, list[SameText]]:
        """The live memories per content key (id, type, when it occurred), oldest
        first, in one indexed lookup per batch: the writer picks the one an item
        repeats."""
        if not keys:
            return {}
        found: dict[str, list[SameText]] = {}
        for same in memories.same_text(self.store, keys, project_id):
            found.setdefault(same.key, []).append(same)
        return found

    def merge_params(self, merges: Sequence[dict]) -> list[dict]:
        """The ``$merges`` of ``remember_many``: each duplicate counted into its memory.

        ``merges``: dicts with ``id``, ``occurrences``, ``evidence``, ``tags``,
        ``match`` and ``similarity``; each gets the id of its log entry.
        """
        return [{**m, "event_id": new_id()} for m in merges]

    def merged(self, memories: Sequence[Memory], *, project_id: str) -> list[str]:
        """After a write merged duplicates into ``memories`` (as they now stand): log
        them and activate what recurred enough. Returns the ids it activated."""
        for memory in memories:
            self.telemetry.emit(
                "staging.merged", self._now(), memory_id=memory.id, project_id=project_id
            )
        return self.activate_earned(memories, project_id=project_id)

    def activate_earned(self, memories: Iterable[Memory], *, project_id: str) -> list[str]:
        """Activate the candidates among ``memories`` whose signals crossed a threshold."""
        return self._activate_earned([Evidence.of(m) for m in memories], project_id=project_id)

    def _activate_earned(self, evidence: Iterable[Evidence], *, project_id: str) -> list[str]:
        earned = [(e.memory_id, s) for e in evidence if (s := earned_signal(e, self.rules))]
        return self.activate(earned, project_id=project_id)

    def activate(self, items: Sequence[tuple[str, Signal]], *, project_id: str) -> list[str]:
        """candidate -> active for each (id, signal); active ones are left alone."""
        if not items:
            return []
        activated = lifecycle.activate(
            self.store,
            [(memory_id, signal.value) for memory_id, signal in items],
            project_id,
            self._now(),
        )
        signals = dict(items)
        self.activated(
            [(memory_id, signals[memory_id]) for memory_id in activated], project_id=project_id
        )
        return activated

    def activated(self, items: Sequence[tuple[str, Signal]], *, project_id: str) -> None:
        """Report activations, including those another statement wrote."""
        for memory_id, signal in items:
            self.telemetry.emit(
                "staging.activated",
                self._now(),
                memory_id=memory_id,
                project_id=project_id,
                signal=signal.value,
            )

    def reject(self, memory_ids: Sequence[str], reason: str, *, project_id: str) -> list[str]:
        rejected = lifecycle.reject(self.store, memory_ids, reason, project_id, self._now())
        self.cascade.changed(
            [Changed(memory_id, Change.REJECTED) for memory_id in rejected], project_id=project_id
        )
        return rejected
