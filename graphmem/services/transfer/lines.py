"""Reading an import file line by line, and the checks every record's
properties pass before anything is written.

A line that fails is reported by number with the reason and left out; the
lines around it still go in. Only values the graph can hold as properties
get through: scalars and lists of scalars, strings without NUL (the
databases' query parsers end a string there), finite numbers, and property
names that are plain identifiers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from graphmem.domain.errors import InvalidInputError

MAX_LINE_CHARS = 1_000_000
"""Longer than any record graphmem writes (content, rationale, evidence and a
384-float embedding fit in well under 100 kB); a longer line is skipped."""
PROPERTY_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
Scalar = str | bool | int | float


def write_line(out: IO[str], record: Mapping[str, Any]) -> None:
    """One record as one line of compact JSON (text as itself, not \\u escapes)."""
    text = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    out.writelines((text, "\n"))


def numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a file with their 1-based line numbers."""
    for number, text in enumerate(lines, start=1):
        if text.strip():
            yield number, text


def decode(text: str) -> dict[str, Any]:
    """One line as a JSON object, or an error saying what is wrong with it."""
    if len(text) > MAX_LINE_CHARS:
        raise InvalidInputError(f"line: longer than {MAX_LINE_CHARS:,} characters", field="line")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"line: not JSON ({exc.msg})", field="line") from None
    if not isinstance(record, dict):
        raise InvalidInputError("line: not a JSON object", field="line")
    return record


def properties(value: Any, field: str) -> dict[str, Any]:
    """A record's ``props``: a map of graph-storable values; nulls mean absent."""
    if not isinstance(value, dict):
        raise InvalidInputError(f"{field}: must be an object", field=field)
    props = {}
    for name, item in value.items():
        if name not in _GOOD_NAMES:
            if not PROPERTY_NAME.match(name):
                raise InvalidInputError(
                    f"{field}.{name}: a property name must be a letter or _ followed by up to "
                    "127 letters, digits or _",
                    field=f"{field}.{name}",
                )
            if len(_GOOD_NAMES) < MAX_REMEMBERED_NAMES:
                _GOOD_NAMES.add(name)
        if item is not None:
            props[name] = storable(item, f"{field}.{name}")
    return props


_GOOD_NAMES: set[str] = set()
"""Names already checked: an import sees the same few dozen on every line."""
MAX_REMEMBERED_NAMES = 10_000


def storable(value: Any, field: str) -> Scalar | list[Scalar]:
    if type(value) is list:
        for item in value:
            _scalar(item, field)
        return value
    return _scalar(value, field)


def _scalar(value: Any, field: str) -> Scalar:
    kind = type(value)
    if kind is str:
        if "\x00" in value:
            raise InvalidInputError(f"{field}: must not contain NUL characters", field=field)
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInputError(
                    f"{field}: must be valid Unicode (it holds a lone surrogate)", field=field
                ) from None
        return value
    if kind is float:
        if math.isfinite(value):
            return value
    elif kind is bool:
        return value
    elif kind is int:
        if not -(2**63) <= value < 2**63:
            raise InvalidInputError(f"{field}: an integer must fit in 64 bits", field=field)
        return value
    raise InvalidInputError(
        f"{field}: must be a string, number or boolean, or a list of them", field=field
    )


def text_id(value: Any, field: str) -> str:
    """An id a record refers to something by: a non-empty string without NUL."""
    if not isinstance(value, str) or not value or "\x00" in value or len(value) > 256:
        raise InvalidInputError(f"{field}: must be a non-empty string of up to 256 characters",
                                field=field)  # fmt: skip
    return value


def optional_id(value: Any, field: str) -> str | None:
    return None if value is None else text_id(value, field)
