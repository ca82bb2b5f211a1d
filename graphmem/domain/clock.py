"""Time as an injectable dependency.

Scoring decays with time and staleness depends on it; passing a clock in lets
tests move time forward without sleeping.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """UTC epoch seconds."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that only moves when told to."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def set(self, epoch_seconds: float) -> None:
        self._now = epoch_seconds


def to_datetime(epoch_seconds: float | None) -> datetime | None:
    if epoch_seconds is None:
        return None
    return datetime.fromtimestamp(epoch_seconds, tz=UTC)


def stored_now(clock: Clock) -> float:
    """The time to store: milliseconds, because FalkorDB returns doubles to 15
    significant digits and cursors compare stored times exactly."""
    return round(clock.now(), 3)
