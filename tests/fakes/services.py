"""Services built over any ``Store`` (a fake or a real one), as ``wire`` builds
them but one at a time, so a test names the service it covers."""

from __future__ import annotations

from typing import Any

from graphmem.domain.clock import Clock
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.base import Basics
from graphmem.services.telemetry import Telemetry
from graphmem.store import Store


def basics(store: Store, clock: Clock, **rules: Any) -> Basics:
    """What a service is built with: ``store``, ``clock``, the default scorer, a
    telemetry hook of its own, and the default retention rules changed by ``rules``."""
    return Basics(
        store=store,
        clock=clock,
        scorer=ImportanceScorer(),
        rules=RetentionRules(**rules),
        telemetry=Telemetry(),
    )
