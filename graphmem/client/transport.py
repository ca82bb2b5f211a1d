"""One GraphQL request over HTTP, its retries and its answer, for both clients.

A request the server refused before running it (429 rate limited, 503 store
unavailable at the door) is safe to send again whatever it does, so those two
are retried, waiting as long as the server's ``Retry-After`` asks, a bounded
number of times. Every other answer is read once: its data decoded, or its
first error raised as the exception the same failure raises in process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import httpx

from graphmem.client.answers import read, seconds
from graphmem.operations.requests import Call

T = TypeVar("T")

RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a refused request is tried again."""

    max_retries: int = 3
    """Further attempts after the first; 0 turns retrying off."""
    max_wait: float = 30.0
    """The longest single wait; a server asking for more fails the call at once."""
    backoff: float = 0.5
    """The first wait when the server names none; it doubles with each attempt."""

    def delay(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before trying ``response``'s request again; ``None``: do not."""
        if response.status_code not in RETRIED_STATUSES or attempt >= self.max_retries:
            return None
        wait = retry_after(response)
        if wait is None:
            wait = self.backoff * 2**attempt
        return wait if wait <= self.max_wait else None


def retry_after(response: httpx.Response) -> float | None:
    """The ``Retry-After`` the server asked for, in seconds."""
    return seconds(response.headers.get("retry-after"))


def answer(call: Call[T], response: httpx.Response) -> T:
    """The call's result from the server's answer, or the error the answer holds."""
    return read(
        call,
        response.status_code,
        response.content,
        url=str(response.request.url),
        retry_after=retry_after(response),
    )
