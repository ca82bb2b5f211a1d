"""Per-caller token buckets: a steady rate with room for bursts.

Pure logic with an injected clock, so the limit is testable without waiting.
One limiter serves a server: the HTTP gate and the websocket handler each
decide who a caller is, ``admit`` it, and answer a refusal their own way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from graphmem.domain.clock import Clock, SystemClock
from graphmem.domain.errors import RateLimitedError
from graphmem.settings import env_name

MAX_TRACKED_CALLERS = 10_000
"""Buckets kept at once; the least recently seen caller is forgotten first (a
forgotten caller starts again with a full bucket, which only ever errs lenient)."""


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    def __init__(self, rate: float, burst: int, clock: Clock | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock or SystemClock()
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def acquire(self, caller: str) -> float:
        """Take one token; 0 when allowed, else the seconds until one is available."""
        if not self.enabled:
            return 0.0
        now = self._clock.now()
        with self._lock:
            bucket = self._buckets.pop(caller, None) or _Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
            self._buckets[caller] = bucket
            if len(self._buckets) > MAX_TRACKED_CALLERS:
                self._buckets.popitem(last=False)
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate

    def admit(self, key_id: str | None) -> None:
        """Take a token for an API key's request, or raise ``RateLimitedError``
        with the wait. Open local access (no key) is the operator's own machine,
        and is not limited."""
        if key_id is None:
            return
        wait = self.acquire(key_id)
        if wait > 0:
            raise RateLimitedError(wait, self.rate, setting=env_name("rate_limit"))
