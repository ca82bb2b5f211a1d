"""The shape of an adapter's error table: which backend exceptions become
which of graphmem's errors.

Each adapter declares one table of rows (``errors_falkordb``, ``errors_neo4j``)
and applies it where it sends a statement, so what a client sees for every
backend failure is read off one list rather than out of nested ``try``
blocks. A row names the exception types it takes, a test of the exception's
message or code where one type means several things, and how to build
graphmem's error. The first row that takes an exception wins, so a row for a
subclass or a narrower test comes before a row for the general case. An
exception no row takes is raised as it is: it is a fault in graphmem's own
statement, not the database's, and it must reach the log unchanged.

Retries are not rows: a statement that runs again (a stale schema cache, a
server that came back, an index being built) is the adapter's explicit
decision, taken before its table is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, TypeVar

from graphmem.domain.errors import GraphMemError

Context = TypeVar("Context")
"""What a row may read besides the exception: a statement's parameters, or the
settings of the server a start check reached."""

Params = Mapping[str, Any] | None
"""The context of a statement's failure: the parameters it was sent with."""


def always(exc: Any, context: Any) -> bool:
    """The test of a row that takes every exception of its types."""
    return True


@dataclass(frozen=True)
class Row(Generic[Context]):
    """One line of a table: ``raised`` (the backend's exception types) becomes
    ``error(exc, context)`` when ``when(exc, context)`` holds."""

    raised: tuple[type[Exception], ...]
    error: Callable[[Any, Context], GraphMemError]
    when: Callable[[Any, Context], bool] = always


class ErrorTable(Generic[Context]):
    """An adapter's rows in the order they are tried."""

    def __init__(self, *rows: Row[Context]) -> None:
        self.rows = rows
        self.raised: tuple[type[Exception], ...] = tuple(
            dict.fromkeys(kind for row in rows for kind in row.raised)
        )
        """Every type some row takes: what the adapter's ``except`` names."""

    def translate(self, exc: Exception, context: Context) -> GraphMemError | None:
        """graphmem's error for ``exc`` from the first row that takes it, or None."""
        for row in self.rows:
            if isinstance(exc, row.raised) and row.when(exc, context):
                return row.error(exc, context)
        return None

    def reraise(self, exc: Exception, context: Context) -> NoReturn:
        """Raise graphmem's error for ``exc``, caused by it; or ``exc`` itself
        when no row takes it."""
        error = self.translate(exc, context)
        if error is None:
            raise exc
        raise error from exc
