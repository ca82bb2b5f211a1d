"""Errors every surface maps to a machine-readable code.

The GraphQL layer turns these into error extensions and the CLI into exit
messages, so a client never has to parse a Python traceback.
"""

from __future__ import annotations


class GraphMemError(Exception):
    """Base error; ``code`` is stable and safe to show to clients."""

    code = "INTERNAL"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFoundError(GraphMemError):
    code = "NOT_FOUND"


class InvalidInputError(GraphMemError):
    code = "INVALID_INPUT"


class ConflictError(GraphMemError):
    code = "CONFLICT"


class StoreUnavailableError(GraphMemError):
    code = "STORE_UNAVAILABLE"


class UnauthenticatedError(GraphMemError):
    """No credentials, or credentials that match no live key."""

    code = "UNAUTHENTICATED"


class ForbiddenError(GraphMemError):
    """A valid key asked for a project or a role it does not hold."""

    code = "FORBIDDEN"


class RateLimitedError(GraphMemError):
    code = "RATE_LIMITED"
