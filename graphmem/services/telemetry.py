"""One hook for every event graphmem emits.

Promotion triggers, runs and (later) retrieval calls report here; logs and
metrics subscribe instead of each service knowing about them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from graphmem.domain.clock import Clock
from graphmem.domain.errors import InvalidInputError

log = logging.getLogger("graphmem.telemetry")


@dataclass(frozen=True)
class Event:
    name: str
    """Dotted name, e.g. ``promotion.triggered``."""
    at: float
    fields: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[Event], None]


class Telemetry:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns the function that removes it."""
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def emit(self, name: str, at: float, **fields: Any) -> None:
        event = Event(name=name, at=at, fields=fields)
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(event)
            except Exception:  # a broken subscriber must not break a write path
                log.exception("telemetry subscriber failed on %s", name)

    @contextmanager
    def timed(self, name: str, clock: Clock, **fields: Any) -> Iterator[dict[str, Any]]:
        """Emit ``name`` when the block ends, with its ``status`` (``ok``, ``invalid``
        for rejected input, ``error``) and ``duration_ms``; the block may add or
        change fields in the dict it is given."""
        started = time.perf_counter()
        status = "error"
        try:
            yield fields
            status = "ok"
        except InvalidInputError:
            status = "invalid"
            raise
        finally:
            duration_ms = (time.perf_counter() - started) * 1000.0
            self.emit(name, clock.now(), status=status, duration_ms=duration_ms, **fields)
