"""Request ids, and what one HTTP request has done so far.

The request middleware opens a ``RequestInfo`` per request and keeps it in a
context variable, so log records, the GraphQL operation recorder and the
error masking find it without being handed it, including in the worker
threads resolvers run in (they copy the context).
"""

from __future__ import annotations

import re
import secrets
from contextvars import ContextVar, Token
from dataclasses import dataclass

HEADER = "x-request-id"
_SANE = re.compile(r"[A-Za-z0-9._-]{1,64}")


@dataclass
class RequestInfo:
    id: str
    method: str
    path: str
    operation: str | None = None
    """The GraphQL operation's name, or its top-level fields when it has none."""
    operation_type: str | None = None
    outcome: str | None = None
    """``ok``, ``client_error`` or ``server_error`` once a GraphQL operation ran."""
    operation_seconds: float | None = None


_current: ContextVar[RequestInfo | None] = ContextVar("graphmem_request", default=None)


def request_id_from(header: str | None) -> str:
    """The caller's id when it is one a log line can hold safely, else a new one.

    Callers that trace across services send their own id; anything longer than
    64 characters or outside ``[A-Za-z0-9._-]`` could forge log structure or
    bloat every line, so it is replaced rather than trusted.
    """
    if header is not None and _SANE.fullmatch(header):
        return header
    return secrets.token_hex(16)


def current_request() -> RequestInfo | None:
    return _current.get()


def current_request_id() -> str | None:
    request = _current.get()
    return None if request is None else request.id


def enter(request: RequestInfo) -> Token[RequestInfo | None]:
    return _current.set(request)


def leave(token: Token[RequestInfo | None]) -> None:
    _current.reset(token)
