"""FalkorDB adapter of the store port (the embedded default)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import redis
from falkordb import FalkorDB
from falkordb.exceptions import SchemaVersionMismatchException

from graphmem.errors import StoreUnavailableError
from graphmem.statements import Statements
from graphmem.store import Row
from graphmem.store.embedded import EmbeddedFalkorDB

log = logging.getLogger(__name__)


class FalkorStore:
    """Runs named statements against one graph of a FalkorDB server.

    One server holds many graphs; each graph is a separate memory store, which
    is how tests get isolated stores cheaply.
    """

    dialect = "falkordb"

    def __init__(
        self,
        db: FalkorDB,
        graph: str,
        *,
        server: EmbeddedFalkorDB | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        self._db = db
        self._graph = db.select_graph(graph)
        self._server = server
        self._timeout_ms = timeout_ms
        self.graph_name = graph
        self.statements = Statements(self.dialect)

    @classmethod
    def embedded(
        cls,
        data_dir: Path,
        graph: str = "graphmem",
        *,
        durability: str = "balanced",
        timeout_ms: int | None = None,
    ) -> FalkorStore:
        """Start (or reuse) the data directory's server and connect to it."""
        server = EmbeddedFalkorDB(data_dir, durability=durability)
        socket_path = server.start()
        db = FalkorDB(
            unix_socket_path=str(socket_path),
            socket_timeout=30.0,
            socket_connect_timeout=5.0,
            client_name=server.client_name,
        )
        return cls(db, graph, server=server, timeout_ms=timeout_ms)

    @classmethod
    def connect(
        cls, url: str, graph: str = "graphmem", *, timeout_ms: int | None = None
    ) -> FalkorStore:
        """Use a FalkorDB server someone else runs (``redis://`` or ``unix://`` URL)."""
        db = FalkorDB.from_url(url, socket_timeout=30.0, socket_connect_timeout=5.0)
        return cls(db, graph, timeout_ms=timeout_ms)

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._run(name, params, read_only=True)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._run(name, params, read_only=False)

    def setup_schema(self) -> None:
        for ddl in self.statements.script("schema"):
            try:
                self._graph.query(ddl)
            except redis.ResponseError as exc:
                if "already indexed" not in str(exc):
                    raise

    def drop(self) -> None:
        """Delete the whole graph (tests and ``graphmem reset``)."""
        try:
            self._graph.delete()
        except redis.ResponseError as exc:
            if "empty key" not in str(exc) and "Invalid graph operation" not in str(exc):
                raise

    def close(self) -> None:
        try:
            self._db.close()
        finally:
            if self._server is not None:
                self._server.stop()

    def _run(self, name: str, params: Mapping[str, Any] | None, *, read_only: bool) -> list[Row]:
        text = self.statements[name]
        run = self._graph.ro_query if read_only else self._graph.query
        try:
            try:
                result = run(text, dict(params or {}), timeout=self._timeout_ms)
            except SchemaVersionMismatchException:
                # The client refreshed its schema cache; the retry sees the new schema.
                result = run(text, dict(params or {}), timeout=self._timeout_ms)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailableError(f"the graph database did not answer: {exc}") from exc
        columns = [column[1] for column in result.header]
        return [dict(zip(columns, row, strict=True)) for row in result.result_set]
