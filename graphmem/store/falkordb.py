"""FalkorDB adapter of the store port (the embedded default)."""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from array import array
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import redis
from falkordb import FalkorDB
from falkordb.exceptions import SchemaVersionMismatchException

from graphmem.domain.errors import StoreUnavailableError
from graphmem.domain.viewer import with_viewer
from graphmem.store import Row, await_indexes, indexes_building
from graphmem.store.dialect import Dialect
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.errors import Params
from graphmem.store.errors_falkordb import FALKORDB_ERRORS
from graphmem.store.falkordb_names import registration
from graphmem.store.statements import Statements

log = logging.getLogger(__name__)

FIELDS = "fields"
"""The column in which a statement returns a memory's fields as one JSON text."""
_decode = json.JSONDecoder(strict=False).decode

RECOVERY_WAIT = 20.0
"""Seconds a statement waits for a supervised server that is being restarted,
so a request that arrives during a restart is answered late rather than failed."""

INDEX_RETRY_PAUSE = 0.05
"""Seconds between two tries of a statement refused while its index is built."""

_INDEX_QUERY = re.compile(r"Invalid arguments for procedure 'db\.idx\.")
"""How FalkorDB refuses an index search while the index is being built."""
_SEARCHES_INDEX = re.compile(r"\bdb\.idx\.(?:fulltext|vector)\.")
"""A statement that searches an index, told by its text. While FalkorDB builds
an index in the background (after a load with ``DELAY_INDEXING``), a full-text
search answers with no rows, not an error, so such a statement is held until
the indexes are built (``FalkorStore._hold_for_indexes``)."""
_NOT_SENT = re.compile(r"connecting to|Connection not ready|loading the dataset", re.I)
"""Connection errors raised before a statement reached the server (no connection
could be made, or the server was still replaying its file): retrying them
cannot apply a write twice."""


class FalkorStore:
    """Runs named statements against one graph of a FalkorDB server.

    One server holds many graphs; each graph is a separate memory store, which
    is how tests get isolated stores cheaply.
    """

    dialect = Dialect.FALKORDB

    def __init__(
        self,
        db: FalkorDB,
        graph: str,
        *,
        server: EmbeddedFalkorDB | None = None,
        timeout_ms: int | None = None,
        connections: Connections | None = None,
    ) -> None:
        self._db = db
        self._graph = db.select_graph(graph)
        self._server = server
        self._timeout_ms = timeout_ms
        self._connections = connections or Connections()
        self._built_at = -1
        """The connection count at which every index was last seen built: a new
        connection may reach a restarted server, whose indexes are looked at again."""
        self._searches: dict[str, bool] = {}
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
        connections = Connections()
        db = FalkorDB(
            unix_socket_path=str(socket_path),
            socket_timeout=30.0,
            socket_connect_timeout=5.0,
            client_name=server.client_name,
            # Every new connection (after a restart, the pool's first use of each)
            # checks that the server runs at this process's durability.
            connect_func=lambda connection: _on_connect(connection, server, connections),
        )
        server.supervise()
        return cls(db, graph, server=server, timeout_ms=timeout_ms, connections=connections)

    @classmethod
    def connect(
        cls, url: str, graph: str = "graphmem", *, timeout_ms: int | None = None
    ) -> FalkorStore:
        """Use a FalkorDB server someone else runs (``redis://`` or ``unix://`` URL)."""
        connections = Connections()
        # from_url hands its keywords to the connections themselves, which name the
        # hook redis_connect_func (the client's constructor calls it connect_func).
        db = FalkorDB.from_url(
            url,
            socket_timeout=30.0,
            socket_connect_timeout=5.0,
            redis_connect_func=lambda connection: _on_connect(connection, None, connections),
        )
        return cls(db, graph, timeout_ms=timeout_ms, connections=connections)

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._run(name, with_viewer(params), read_only=True)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._run(name, with_viewer(params), read_only=False)

    def setup_schema(self) -> None:
        for ddl in self.statements.script("schema"):
            try:
                self._graph.query(ddl)
            except redis.ResponseError as exc:
                if "already indexed" not in str(exc):
                    raise
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                FALKORDB_ERRORS.reraise(exc, None)
        try:  # graphmem.store.falkordb_names says why
            self._graph.query(registration(self.statements))
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            FALKORDB_ERRORS.reraise(exc, None)
        await_indexes(self)

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
        text = params_header(params) + self.statements[name]
        if not self._searches_index(name):
            return self._send(name, text, params, read_only=read_only)
        deadline = time.monotonic() + RECOVERY_WAIT
        while True:
            seen = self._connections.made
            if self._built_at != seen:
                self._hold_for_indexes(name, seen, deadline)
            rows = self._send(name, text, params, read_only=read_only)
            # A connection made while it ran may have reached a restarted server:
            # a read's answer counts only once the indexes are seen built there
            # (no write searches an index; one would not be sent twice).
            if self._connections.made == seen or not read_only:
                return rows

    def _searches_index(self, name: str) -> bool:
        searches = self._searches.get(name)
        if searches is None:
            searches = self._searches[name] = bool(_SEARCHES_INDEX.search(self.statements[name]))
        return searches

    def _hold_for_indexes(self, name: str, seen: int, deadline: float) -> None:
        """Before a statement that searches an index runs on a server not yet
        seen with every index built (this process's first, or one reached by a
        new connection, as after a restart): wait for the indexes, as
        ``_after_indexes`` does, until ``deadline``; then ``STORE_UNAVAILABLE``.
        FalkorDB answers a full-text search on an index under construction with
        no rows, which would read as "nothing matches"; an answer that may be
        wrong is never given. Checked only then, so a store whose indexes were
        seen built sends nothing more per statement."""
        if indexes_building(self):
            log.warning("statement %s waits for the indexes being built", name)
            await_indexes(self, max(0.0, deadline - time.monotonic()))
            if indexes_building(self):
                raise _rebuilding()
        self._built_at = seen

    def _send(self, name: str, text: str, params: Params, *, read_only: bool) -> list[Row]:
        """One statement, its failure translated by ``FALKORDB_ERRORS``; one
        refused while an index is rebuilt waits for it (``_after_indexes``)."""
        run = self._graph.ro_query if read_only else self._graph.query
        try:
            result = self._answer(name, text, run, read_only=read_only)
        except FALKORDB_ERRORS.raised as exc:
            if isinstance(exc, redis.ResponseError) and _INDEX_QUERY.search(str(exc)):
                return self._after_indexes(name, text, run, exc)
            FALKORDB_ERRORS.reraise(exc, params)
        return _rows(result)

    def _answer(self, name: str, text: str, run: Any, *, read_only: bool) -> Any:
        """The server's answer, after the two retries a statement may take: once
        when the client refreshed its schema cache (the retry sees the new
        schema), once when the connection failed and ``_recovered`` says the
        statement may run again."""
        try:
            return run(text, timeout=self._timeout_ms)
        except SchemaVersionMismatchException:
            return run(text, timeout=self._timeout_ms)
        except redis.ConnectionError as exc:
            if not self._recovered(exc, read_only=read_only):
                raise
            log.info("statement %s retried after the graph database came back", name)
            return run(text, timeout=self._timeout_ms)

    def _after_indexes(self, name: str, text: str, run: Any, exc: redis.ResponseError) -> list[Row]:
        """A statement that asked an index still being built: after a restart
        FalkorDB rebuilds its indexes from its files, and a search meanwhile
        fails ("Invalid arguments for procedure"). It runs again as the indexes
        come up, until ``RECOVERY_WAIT`` has passed; then the caller gets
        ``STORE_UNAVAILABLE``, which clients retry, never an internal error. The
        index may have finished between the failure and a look at it, or not
        yet be listed as building, so the statement is always tried again; only
        a refusal that outlasts the wait with every index ready is a fault of
        the statement itself. The failed statement changed nothing, so running
        it again is safe."""
        log.warning("statement %s waits for the indexes being rebuilt", name)
        deadline = time.monotonic() + RECOVERY_WAIT
        while True:
            await_indexes(self, max(0.0, deadline - time.monotonic()))
            try:
                return _rows(run(text, timeout=self._timeout_ms))
            except redis.ResponseError as again:
                if not _INDEX_QUERY.search(str(again)):
                    raise
                exc = again
            except (redis.ConnectionError, redis.TimeoutError) as lost:
                FALKORDB_ERRORS.reraise(lost, None)
            if time.monotonic() >= deadline:
                break
            time.sleep(INDEX_RETRY_PAUSE)
        if indexes_building(self):
            raise _rebuilding() from exc
        raise exc

    def _recovered(self, exc: redis.ConnectionError, *, read_only: bool) -> bool:
        """Whether a failed statement may run again: its server is supervised and
        serves again, and the statement cannot have been applied (a read, or a
        write that never reached the server). A write cut off in flight is not
        retried: it may have been applied, and its caller got no answer either way."""
        if self._server is None or not (read_only or _NOT_SENT.search(str(exc))):
            return False
        return self._server.await_serving(RECOVERY_WAIT)


def _rows(result: Any) -> list[Row]:
    """A result's rows as the Neo4j adapter gives them.

    The candidate statements return a memory's fields as one JSON text
    (``fields``) where they can: the client parses every returned value in
    Python, and one value to decode costs less than twenty (see
    cypher/falkordb/candidate_memories.cypher). It becomes the map
    (``memory``) a statement returns otherwise, as Neo4j's always does."""
    columns = [column[1] for column in result.header]
    rows = [dict(zip(columns, row, strict=True)) for row in result.result_set]
    if FIELDS in columns:
        for row in rows:
            fields = row.pop(FIELDS)
            if fields is not None:
                row["memory"] = _decode(fields)
    return rows


def _rebuilding() -> StoreUnavailableError:
    """What a statement that waited out ``RECOVERY_WAIT`` for the indexes answers."""
    return StoreUnavailableError("the graph database is rebuilding its indexes; try again shortly")


class Connections:
    """Counts the connections made to the server: one made after a restart
    reaches a server that may be building its indexes again."""

    def __init__(self) -> None:
        self.made = 0
        self._lock = threading.Lock()

    def one_more(self) -> None:
        with self._lock:
            self.made += 1


def _on_connect(connection: Any, server: EmbeddedFalkorDB | None, connections: Connections) -> None:
    connections.one_more()
    connection.on_connect()
    if server is None:
        return
    try:
        server.enforce_durability(connection)
    except StoreUnavailableError as exc:
        # As a connection error, so the client drops the half-set-up connection.
        raise redis.ConnectionError(exc.message) from exc


def params_header(params: Mapping[str, Any] | None) -> str:
    """FalkorDB receives parameters as a ``CYPHER name=literal ...`` prefix.

    The client library builds it with a generic recursive encoder that
    dominates the cost of bulk writes; this one handles the value types
    graphmem sends with one type dispatch per value. Strings are quoted with
    backslash and double quote escaped, which is all FalkorDB's literal
    syntax needs; parameter values are data, never statement text.
    """
    if not params:
        return ""
    return "CYPHER " + " ".join(f"{_key(k)}={_literal(v)}" for k, v in params.items()) + " "


def _literal(value: Any) -> str:
    encode = _ENCODERS.get(type(value))
    if encode is not None:
        return encode(value)
    if value is None:
        return "null"
    if isinstance(value, str):  # enums and other str subclasses
        return _string(str(value))
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float(float(value))
    raise TypeError(f"cannot send a {type(value).__name__} as a Cypher parameter")


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _float(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError("a parameter cannot be NaN or infinite")
    return repr(value)


def _list(value: list[Any] | tuple[Any, ...]) -> str:
    return "[" + ",".join([_literal(v) for v in value]) + "]"


def _vector(value: array[float]) -> str:
    """An embedding (``array('f')``) at the precision it is stored in.

    Nine significant digits give a float32 back exactly, in about half the
    text and time of a float64 ``repr``; embeddings are most of what a bulk
    write sends.
    """
    if value.typecode != "f":
        raise TypeError(f"cannot send an array of {value.typecode!r} as a Cypher parameter")
    text = _vector_format(len(value)) % tuple(value)
    if "n" in text:  # nan or inf: no finite number prints an "n"
        raise ValueError("a parameter cannot be NaN or infinite")
    return text


@cache
def _vector_format(size: int) -> str:
    """One format for a whole vector: a quarter faster than formatting each number."""
    return "[" + ",".join(["%.9g"] * size) + "]"


def _map(value: dict[str, Any]) -> str:
    return "{" + ",".join([_key(k) + ":" + _literal(v) for k, v in value.items()]) + "}"


_ENCODERS: dict[type, Callable[[Any], str]] = {
    str: _string,
    float: _float,
    bool: lambda value: "true" if value else "false",
    int: str,
    list: _list,
    tuple: _list,
    dict: _map,
    array: _vector,
}


def _key(name: str) -> str:
    quoted = _QUOTED_KEYS.get(name)
    if quoted is None:
        if not name or "`" in name:
            raise ValueError(f"invalid parameter name {name!r}")
        quoted = _QUOTED_KEYS[name] = f"`{name}`"
    return quoted


_QUOTED_KEYS: dict[str, str] = {}
