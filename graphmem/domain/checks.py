"""What every input is held to: the documented limits, the text and id rules,
and the checks that turn a bad value into one error naming the field.

Every surface (Python, GraphQL, CLI, MCP) validates through these, so each
rejects the same bad values with the same message naming the field and the limit.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

from graphmem.domain import errors
from graphmem.domain.clock import SHOWN_RANGE, as_datetime, showable
from graphmem.domain.errors import InvalidInputError

# Documented input limits (docs/graphql.md, "Limits").
MAX_CONTENT_CHARS = 10_000
MAX_RATIONALE_CHARS = 4_000
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_EVIDENCE_ITEMS = 32
MAX_EVIDENCE_CHARS = 2_000
MAX_PAGE_SIZE = 200
MAX_BATCH_SIZE = 5_000
MAX_INT64 = 2**63 - 1
"""The largest integer the graph databases store or compare (64-bit signed)."""
MAX_FUTURE_SKEW_SECONDS = 300.0
"""How far ahead of the server's clock an ``occurred_at`` may be (clocks drift)."""
MILLISECOND_EPOCHS = 1e11
"""Epoch numbers above this are milliseconds (10^11 seconds is the year 5138)."""


def epoch_seconds(value: Any) -> float:
    """A time (a ``datetime``, ISO 8601 text, or epoch seconds or milliseconds)
    as epoch seconds, to the millisecond graphmem stores times at. A time
    without a zone is UTC. Only a time every surface can show is taken
    (``SHOWN_RANGE``): a stored time outside it could not be read back as a date."""
    seconds = round(_seconds(value), 3)
    if not showable(seconds):
        raise ValueError(f"must be a time from {SHOWN_RANGE}")
    return seconds


def _seconds(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("must be an ISO 8601 time or epoch seconds")
    if isinstance(value, int | float):
        seconds = float(value)
        if not math.isfinite(seconds):
            raise ValueError("must be a finite number")
        return seconds / 1000.0 if abs(seconds) >= MILLISECOND_EPOCHS else seconds
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError("must be an ISO 8601 time or epoch seconds") from None
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return moment.timestamp()
    raise ValueError("must be an ISO 8601 time or epoch seconds")


Epoch = Annotated[float, BeforeValidator(epoch_seconds)]
"""A time as epoch seconds, given as a ``datetime``, ISO 8601 text or a number."""

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")]
"""Caller-chosen ids (projects, sessions, agents): 1-128 safe characters."""
_identifier = TypeAdapter(Identifier)


def check_identifier(field: str, value: str) -> str:
    """A caller-chosen id passed outside an input model (a project, a new session)."""
    try:
        return _identifier.validate_python(value)
    except ValidationError:
        raise InvalidInputError(
            f"{field}: must be 1-128 characters of letters, digits and . _ : @ -", field=field
        ) from None


def no_nul(text: str) -> str:
    # The graph databases' query parsers end a string at a NUL character, and
    # an unpaired surrogate has no UTF-8 form to send them.
    if "\x00" in text:
        raise ValueError("must not contain NUL characters")
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise ValueError("must not contain unpaired surrogates") from None
    return text


_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Control characters (C0, DEL, C1) but tab, newline and carriage return; NUL has
its own rule."""


def no_controls(text: str | None) -> str | None:
    # A memory's text is what agents are given and terminals print: a control
    # character in it (an ANSI sequence, a bell) is never content, and printed raw
    # it drives the terminal of whoever reads it.
    found = _CONTROL.search(text) if text is not None else None
    if found is not None:
        raise ValueError(
            "must not contain control characters other than tab, newline and carriage "
            f"return (found {found.group()!r} at character {found.start() + 1})"
        )
    return text


Text = Annotated[str, AfterValidator(no_nul)]
Printed = Annotated[str, AfterValidator(no_nul), AfterValidator(no_controls)]
"""Text that says something about a memory (a tag, a rationale, a reason) rather
than what happened: never a tool's coloured output, so a control character in it
is always a mistake."""
_printed = TypeAdapter(Printed)


def check_text(field: str, value: Any, *, max_chars: int) -> str:
    """Free text passed outside an input model (a relation's rationale, a review's
    reason, a session's name), held to the rules of a memory's own text."""
    try:
        text = _printed.validate_python(value)
    except ValidationError as exc:
        raise errors.invalid_input(exc, locate=lambda _: field) from None
    if len(text) > max_chars:
        raise InvalidInputError(f"{field}: at most {max_chars} characters", field=field)
    return text


# Length limits go on the string itself, ahead of the NUL check: placed after it,
# pydantic reports a too-long string in "items".
Tag = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TAG_CHARS),
    AfterValidator(no_nul),
    AfterValidator(no_controls),
]
Evidence = Annotated[
    str,
    StringConstraints(max_length=MAX_EVIDENCE_CHARS),
    AfterValidator(no_nul),
    AfterValidator(no_controls),
]
Rationale = Annotated[
    str, StringConstraints(max_length=MAX_RATIONALE_CHARS), AfterValidator(no_nul)
]


def check_between(field: str, value: Any, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``, as a page size, a depth or a batch
    is: anything else (a bool, a float, out of range) is refused naming the field
    and both limits."""
    if type(value) is not int or not low <= value <= high:
        raise InvalidInputError(f"{field}: must be between {low} and {high}", field=field)
    return value


def check_validity(valid_from: float, valid_to: float | None, *, field: str = "valid_to") -> None:
    """A validity never ends before it begins (an end equal to the start is an
    empty validity: the memory never held)."""
    if valid_to is not None and valid_to < valid_from:
        raise InvalidInputError(
            f"{field}: the validity would end ({_iso(valid_to)}) before it begins "
            f"({_iso(valid_from)}); valid_to must not be earlier than valid_from",
            field=field,
        )


def check_not_future(at: float, now: float, *, field: str) -> None:
    """A time no later than a small clock skew past ``now``: an event that has
    not happened yet, or a view of the store not yet written, is a mistake."""
    if at > now + MAX_FUTURE_SKEW_SECONDS:
        raise InvalidInputError(
            f"{field}: must not be more than {MAX_FUTURE_SKEW_SECONDS:.0f} seconds in the "
            f"future, got {_iso(at)}",
            field=field,
        )


def _iso(epoch: float) -> str:
    return as_datetime(epoch).isoformat()


class InputModel(BaseModel):
    """What a caller supplies: unknown fields rejected, text stripped, never changed
    once validated."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


M = TypeVar("M", bound=BaseModel)
E = TypeVar("E", bound=StrEnum)


def choice(kind: type[E], value: str, field: str) -> E:
    """``value`` as one of ``kind``'s values; anything else names the field and
    every value it may take."""
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        raise InvalidInputError(f"{field}: must be one of {allowed}", field=field) from None


def parse(model: type[M], data: Any) -> M:
    """Validate ``data`` into ``model``, or raise one error naming each bad field."""
    if isinstance(data, model):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise errors.invalid_input(exc) from None
