"""Errors every surface maps to a machine-readable code.

The GraphQL layer turns these into error extensions and the CLI into exit
messages, so a client never has to parse a Python traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails


class GraphMemError(Exception):
    """Base error; ``code`` is stable and safe to show to clients.

    ``field`` is the first input at fault and ``fields`` every one, in the
    order the message names them: a client fixing one at a time would
    otherwise need a round trip per mistake."""

    code = "INTERNAL"

    def __init__(
        self, message: str, *, field: str | None = None, fields: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field if field is not None else next(iter(fields), None)
        named = list(dict.fromkeys(fields))
        if self.field is not None and self.field not in named:
            named.insert(0, self.field)
        self.fields: tuple[str, ...] = tuple(named)


class NotFoundError(GraphMemError):
    code = "NOT_FOUND"


class InvalidInputError(GraphMemError):
    code = "INVALID_INPUT"


class ConflictError(GraphMemError):
    code = "CONFLICT"


def suggestion(name: str, known: Collection[str]) -> str:
    """``" (did you mean 'x'?)"`` for a close known name, or nothing: a typo is
    found in the message rather than by reading the documentation."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f" (did you mean {close[0]!r}?)" if close else ""


ARGUMENTS = {
    "project_id": "the project is an argument of the call, not a key of the item: "
    "pass project_id= (projectId in GraphQL)",
}
"""Keys callers put into an item that belong to the call, and where they go."""


def problem(error: ErrorDetails, known: Collection[str] = ()) -> str:
    """What is wrong with one value, in words that fit graphmem's inputs:
    pydantic counts the characters of a whitespace-only text after stripping
    it ("at least 1 character"), where the writer only typed blanks, and it
    refuses an unknown key without naming one it would take."""
    kind = error["type"]
    value = error.get("input")
    if kind == "string_too_short" and error.get("ctx", {}).get("min_length") == 1:
        if isinstance(value, str) and value:
            return "is blank: it holds only whitespace"
        return "must not be empty"
    if kind == "extra_forbidden" and error["loc"]:
        name = str(error["loc"][-1])
        if name in ARGUMENTS:
            return f"unknown key {name!r}: {ARGUMENTS[name]}"
        return f"unknown key {name!r}{suggestion(name, known)}"
    return error["msg"]


def invalid_input(
    exc: ValidationError,
    *,
    locate: Callable[[tuple[Any, ...]], str] | None = None,
    known: Collection[str] = (),
) -> InvalidInputError:
    """One error naming every bad field (``locate`` renames pydantic's
    locations); ``known`` are the keys the model takes, for suggestions."""
    problems: list[tuple[str, str]] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        field = locate(loc) if locate else ".".join(str(part) for part in loc)
        problems.append((field or "input", problem(err, known)))
    message = "; ".join(f"{field}: {text}" for field, text in problems)
    return InvalidInputError(message, fields=[field for field, _ in problems])


STORE_UNAVAILABLE_MESSAGE = "The graph database is unavailable; try again shortly"
"""What a client is told during an outage: the error's own message may name
sockets, hosts or paths, which only the operator's log should hold."""


STORED_TIME_OUT_OF_RANGE = "STORED_TIME_OUT_OF_RANGE"
"""The code of a notice, not a failure: a memory read holds a stored time no
surface can show, and the answer shows the nearest one that can be. Clients
serve the answer and warn."""


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

    def __init__(self, wait: float, rate: float, *, setting: str) -> None:
        """``setting``: the variable that sets the rate, for the caller to raise it."""
        super().__init__(
            f"rate limit of {rate:g} requests per second exceeded ({setting}); "
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

    def __init__(self, size: int, limit: int, *, setting: str) -> None:
        """``setting``: the variable that sets the limit."""
        super().__init__(
            f"body: {size} bytes or more, the limit is {limit} ({setting})",
            field="body",
        )
