"""How a server's HTTP answer to one call becomes its result or its error.

Kept apart from the HTTP library: the clients read their ``httpx`` answers
with it, and the prompt hook, which sends its call on the standard library
because a hook is a new process on every prompt, reads its answers with the
same rules and gets the same errors.
"""

from __future__ import annotations

import email.utils
import json
import time
import warnings
from typing import Any, TypeVar

from graphmem.client.errors import ServerError, StoredTimeWarning, error_from
from graphmem.domain.errors import STORED_TIME_OUT_OF_RANGE
from graphmem.operations.requests import Call

T = TypeVar("T")


def read(call: Call[T], status: int, body: bytes, *, url: str, retry_after: float | None) -> T:
    """The call's result from the server's answer, or the error the answer holds."""
    try:
        document = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ServerError(
            f"HTTP {status} from {url}: not a GraphQL answer", code=f"HTTP_{status}"
        ) from None
    errors = document.get("errors") if isinstance(document, dict) else None
    notices = [error for error in errors or [] if _code(error) == STORED_TIME_OUT_OF_RANGE]
    failures = [error for error in errors or [] if error not in notices]
    if failures:
        raise error_from(failures[0], retry_after=retry_after)
    for notice in notices:
        warnings.warn(str(notice.get("message")), StoredTimeWarning, stacklevel=2)
    if not isinstance(document, dict) or not isinstance(document.get("data"), dict):
        raise ServerError(f"HTTP {status} from {url}: no data", code=f"HTTP_{status}")
    return call.read(document["data"])


def _code(error: Any) -> Any:
    extensions = error.get("extensions") if isinstance(error, dict) else None
    return extensions.get("code") if isinstance(extensions, dict) else None


def seconds(retry_after: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (it may be seconds or an HTTP date)."""
    if retry_after is None:
        return None
    try:
        return max(0.0, float(retry_after))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(retry_after)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server named by its base URL or by the endpoint itself."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else f"{url}/graphql"


def headers(api_key: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}"} if api_key else {}
