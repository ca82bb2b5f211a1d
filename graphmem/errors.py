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


STORE_UNAVAILABLE_MESSAGE = "The graph database is unavailable; try again shortly"
"""What a client is told during an outage: the error's own message may name
sockets, hosts or paths, which only the operator's log should hold."""


class StoreUnavailableError(GraphMemError):
    code = "STORE_UNAVAILABLE"


class StorageFullError(StoreUnavailableError):
    """The database is up but cannot write to its disk; reads still work."""

    code = "STORAGE_FULL"

    def __init__(self) -> None:
        super().__init__("disk full: the graph database cannot save writes until space is freed")


class UnauthenticatedError(GraphMemError):
    """No credentials, or credentials that match no live key."""

    code = "UNAUTHENTICATED"


class ForbiddenError(GraphMemError):
    """A valid key asked for a project or a role it does not hold."""

    code = "FORBIDDEN"


class RateLimitedError(GraphMemError):
    code = "RATE_LIMITED"

    def __init__(self, wait: float, rate: float) -> None:
        super().__init__(
            f"rate limit of {rate:g} requests per second exceeded (GRAPHMEM_RATE_LIMIT); "
            f"retry in {wait:.2f} s"
        )
        self.retry_after = wait


class MissingExtraError(GraphMemError):
    """A feature whose module is an optional extra that is not installed."""

    code = "MISSING_EXTRA"

    def __init__(self, feature: str, module: str, extra: str) -> None:
        super().__init__(
            f"{feature} needs {module}, which is not installed: pip install 'graphmem[{extra}]'"
        )
        self.extra = extra


class PayloadTooLargeError(GraphMemError):
    code = "PAYLOAD_TOO_LARGE"

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"body: {size} bytes or more, the limit is {limit} (GRAPHMEM_MAX_BODY_BYTES)",
            field="body",
        )
