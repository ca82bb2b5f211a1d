"""Memory ids: time-ordered, so ids sort by creation like UUIDv7.

Within one millisecond of one process the random part counts up from the
previous id (ULID's monotonic mode), so the items of a batch sort in the order
they were given: results of equal score, which fall back to the id, then come
out in the same order every time the same batch is written.
"""

from __future__ import annotations

import os
import threading
import time

_RANDOM_BITS = 80
_lock = threading.Lock()
_last = (0, 0)


def new_id() -> str:
    global _last
    millis = time.time_ns() // 1_000_000
    with _lock:
        last_millis, last_random = _last
        if millis <= last_millis and last_random + 1 < 1 << _RANDOM_BITS:
            millis, random = last_millis, last_random + 1
        else:
            random = int.from_bytes(os.urandom(_RANDOM_BITS // 8))
        _last = (millis, random)
    return f"{millis:012x}{random:020x}"
