"""The server's error codes as graphmem's own exceptions.

A remote call fails with the class the same failure raises in process
(``NotFoundError``, ``InvalidInputError`` with its ``field``, ...), so code
written against ``GraphMem`` handles errors from ``Client`` unchanged. Codes
only a server has (a malformed document, an internal error) arrive as
``ServerError`` carrying the code as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.errors import (
    ConflictError,
    ForbiddenError,
    GraphMemError,
    InvalidInputError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
    StorageFullError,
    StoreUnavailableError,
    UnauthenticatedError,
)

_CLASSES: dict[str, type[GraphMemError]] = {
    cls.code: cls
    for cls in (
        ConflictError,
        ForbiddenError,
        InvalidInputError,
        NotFoundError,
        PayloadTooLargeError,
        RateLimitedError,
        StorageFullError,
        StoreUnavailableError,
        UnauthenticatedError,
    )
}


class ServerError(GraphMemError):
    """A failure with a code only the server reports (``INTERNAL``,
    ``GRAPHQL_VALIDATION_FAILED``, ``LIMIT_EXCEEDED``, ...)."""

    def __init__(self, message: str, *, code: str, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.code = code


class StoredTimeWarning(UserWarning):
    """A memory in the answer holds a stored time no surface can show; the
    answer shows the nearest one that can be (``graphmem migrate`` repairs it)."""


class ServerUnreachableError(GraphMemError):
    """No answer from the server: refused, timed out, or not HTTP."""

    code = "UNREACHABLE"


def error_from(error: Mapping[str, Any], *, retry_after: float | None = None) -> GraphMemError:
    """The exception one GraphQL error of the server's answer stands for."""
    extensions = error.get("extensions") or {}
    code = str(extensions.get("code") or "INTERNAL")
    message = str(error.get("message") or code)
    field = extensions.get("field")
    cls = _CLASSES.get(code)
    if cls is None:
        return ServerError(message, code=code, field=field)
    # Some classes build their own message from figures only the server knew;
    # the server's message is the one to keep, so their constructors are skipped.
    raised = cls.__new__(cls)
    GraphMemError.__init__(raised, message, field=field)
    if isinstance(raised, RateLimitedError):
        raised.retry_after = retry_after if retry_after is not None else 0.0
    return raised
