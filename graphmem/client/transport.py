"""One GraphQL request over HTTP, its retries and its answer, for both clients.

A request the server refused before running it (429 rate limited, 503 store
unavailable at the door) is safe to send again whatever it does, so those two
are retried, waiting as long as the server's ``Retry-After`` asks, a bounded
number of times. Every other answer is read once: its data decoded, or its
first error raised as the exception the same failure raises in process.
"""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass
from typing import TypeVar

import httpx

from graphmem.client.errors import ServerError, error_from
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
    """The ``Retry-After`` header in seconds (it may be seconds or an HTTP date)."""
    header = response.headers.get("retry-after")
    if header is None:
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def answer(call: Call[T], response: httpx.Response) -> T:
    """The call's result from the server's answer, or the error the answer holds."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ServerError(
            f"HTTP {response.status_code} from {response.request.url}: not a GraphQL answer",
            code=f"HTTP_{response.status_code}",
        ) from None
    errors = body.get("errors") if isinstance(body, dict) else None
    if errors:
        raise error_from(errors[0], retry_after=retry_after(response))
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise ServerError(
            f"HTTP {response.status_code} from {response.request.url}: no data",
            code=f"HTTP_{response.status_code}",
        )
    return call.read(body["data"])


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server named by its base URL or by the endpoint itself."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else f"{url}/graphql"


def headers(api_key: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}"} if api_key else {}
