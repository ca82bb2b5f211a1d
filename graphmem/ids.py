"""Memory ids: time-ordered, so ids sort roughly by creation like UUIDv7."""

from __future__ import annotations

import os
import time


def new_id() -> str:
    millis = time.time_ns() // 1_000_000
    return f"{millis:012x}{os.urandom(10).hex()}"
