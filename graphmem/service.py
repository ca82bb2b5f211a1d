"""What every service gets from GraphMem, and nothing else: the store, time,
scoring, the retention rules and the telemetry hook."""

from __future__ import annotations

from graphmem.clock import Clock, stored_now
from graphmem.retention import RetentionRules
from graphmem.scoring import ImportanceScorer
from graphmem.store import Store
from graphmem.telemetry import Telemetry


class Service:
    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        scorer: ImportanceScorer,
        rules: RetentionRules,
        telemetry: Telemetry,
    ) -> None:
        self.store = store
        self.clock = clock
        self.scorer = scorer
        self.rules = rules
        self.telemetry = telemetry

    def _now(self) -> float:
        return stored_now(self.clock)
