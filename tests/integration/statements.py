"""What a block of a test asks the store, for tests that check which way a
service went (an index or an exact scan, one statement or several)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from graphmem.api import GraphMem


@contextmanager
def statements_read(gm: GraphMem) -> Iterator[list[str]]:
    """The names of the statements the store reads while the block runs."""
    names: list[str] = []
    read = gm.store.read

    def counted(name, params=None):
        names.append(name)
        return read(name, params)

    gm.store.read = counted  # type: ignore[method-assign]
    try:
        yield names
    finally:
        gm.store.read = read  # type: ignore[method-assign]
