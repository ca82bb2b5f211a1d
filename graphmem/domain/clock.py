"""Time as an injectable dependency.

Scoring decays with time and staleness depends on it; passing a clock in lets
tests move time forward without sleeping.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

EARLIEST = -62135510400.0
"""0001-01-02T00:00:00Z, the first time graphmem stores or shows. A day inside
what a date can hold, so the time has a calendar date in every zone (offsets
run to ±14 h) and any client can show it in its own."""
LATEST = 253402214399.0
"""9999-12-30T23:59:59Z, the last time graphmem stores or shows."""
SHOWN_RANGE = "0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z"


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


def showable(epoch_seconds: float) -> bool:
    """Whether a time lies in ``EARLIEST``..``LATEST`` (NaN does not)."""
    return EARLIEST <= epoch_seconds <= LATEST


def nearest_showable(epoch_seconds: float) -> float:
    """The time itself, or the bound nearest to it: what a stored time that no
    write would take (raw Cypher, an older version) is shown as, so one such row
    cannot fail a read of the rest. NaN is shown as the earliest time."""
    if showable(epoch_seconds):
        return epoch_seconds
    return LATEST if epoch_seconds > LATEST else EARLIEST


def as_datetime(epoch_seconds: float) -> datetime:
    """A stored time (UTC epoch seconds) as a UTC ``datetime``; never fails."""
    return datetime.fromtimestamp(nearest_showable(epoch_seconds), tz=UTC)


def to_datetime(epoch_seconds: float | None) -> datetime | None:
    return None if epoch_seconds is None else as_datetime(epoch_seconds)


def stored_now(clock: Clock) -> float:
    """The time to store: milliseconds, because FalkorDB returns doubles to 15
    significant digits and cursors compare stored times exactly."""
    return round(clock.now(), 3)
