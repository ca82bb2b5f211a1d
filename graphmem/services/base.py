"""What every service is built with, and nothing else: the store, time,
scoring, the retention rules and the telemetry hook."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.domain.clock import Clock, stored_now
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.events import ChangeKind
from graphmem.services.telemetry import Telemetry
from graphmem.store import Store


@dataclass(frozen=True)
class Basics:
    """What every service shares; a what-if plan builds its own, at a frozen time
    and under other rules."""

    store: Store
    clock: Clock
    scorer: ImportanceScorer
    rules: RetentionRules
    telemetry: Telemetry


class Service:
    def __init__(self, basics: Basics) -> None:
        self.store = basics.store
        self.clock = basics.clock
        self.scorer = basics.scorer
        self.rules = basics.rules
        self.telemetry = basics.telemetry

    def _now(self) -> float:
        return stored_now(self.clock)

    def _changed(self, kind: ChangeKind, memory_ids: Sequence[str], project_id: str) -> None:
        """Report a write to telemetry, where live subscribers pick it up."""
        if memory_ids:
            self.telemetry.emit(
                "memory.changed",
                self._now(),
                project_id=project_id,
                memory_ids=list(memory_ids),
                kind=kind.value,
            )
