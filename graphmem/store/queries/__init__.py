"""Typed operations over the named statements, one module per aggregate.

A service never sees a row. It calls a function here, which names the
statement, builds its parameters from typed arguments and returns what the
rows mean: a domain model (a ``Memory``, a ``Relation``, a ``Session``), or a
small frozen record declared beside the function whose fields are the
statement's ``RETURN`` columns, or a plain value (a count, a flag, a list of
ids). The store adapters stay untyped (a name and a dict in, dicts out), so a
backend is still one class; what a statement returns is written down once,
here, next to the call that runs it.

``tests/unit/test_typed_rows.py`` fails when a module outside ``graphmem.store``
runs a statement by name or imports ``Row``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

R = TypeVar("R")


def records(record: type[R], rows: Iterable[dict[str, Any]]) -> list[R]:
    """``rows`` as ``record``s: a record's fields are its statement's columns, so
    a column renamed on one side and not the other fails here, by name."""
    return [record(**row) for row in rows]


def first(rows: list[dict[str, Any]], column: str, default: Any = None) -> Any:
    """One column of the first row, or ``default`` when the statement matched nothing."""
    return rows[0][column] if rows else default
