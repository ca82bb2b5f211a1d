"""The store port: run a named Cypher statement with parameters.

Services depend on this protocol only, so the backend (embedded FalkorDB by
default, Neo4j in production) is a configuration choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from graphmem.store.dialect import Dialect

Row = dict[str, Any]


class Store(Protocol):
    dialect: Dialect
    """Which statement files run, and what else differs between backends."""

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a read-only statement."""
        ...

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run a statement that may write; it is atomic on its own."""
        ...

    def setup_schema(self) -> None:
        """Create indexes and constraints; safe to run at every start."""
        ...

    def close(self) -> None: ...
