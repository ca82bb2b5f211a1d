"""Neo4j adapter of the store port (production), on the official ``neo4j`` driver.

A write runs in a managed transaction (``execute_write``): the driver retries
it on transient errors (a cluster leader change, a deadlock between two
writers) for up to ``GRAPHMEM_NEO4J_RETRY_TIME`` seconds. A retry reruns the
whole transaction, and each holds exactly one statement, so a failed attempt
leaves nothing half-done behind for the next one to repeat. A read runs as an
auto-commit transaction, one statement sent with its pull in one round trip
where a managed one adds the begin and the commit (a read of one row took
half the time: docs/neo4j.md), and is retried here alike (``_read``): a read
changes nothing, so running it again is always safe. Reads go to followers on
a ``neo4j://`` cluster; one bookmark manager per store makes a read see the
writes this store made before it, wherever it is routed.

``connect`` asks the server once, before anything else, whether it can serve:
a server that is down, refuses the credentials, lacks the database or is too
old for graphmem's statements stops the start with one line naming the URI.
Once running, an outage is ``STORE_UNAVAILABLE`` on each call until the server
answers again; the driver reconnects by itself.
"""

from __future__ import annotations

import logging
import random
import re
import time
from array import array
from collections.abc import Mapping
from typing import Any

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    Query,
    Session,
    TrustAll,
    TrustCustomCAs,
    TrustSystemCAs,
    unit_of_work,
)
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from graphmem.domain.errors import StoreUnavailableError
from graphmem.domain.viewer import with_viewer
from graphmem.settings import Settings, env_name
from graphmem.store import Row, await_indexes
from graphmem.store.dialect import Dialect
from graphmem.store.errors_neo4j import (
    NEO4J_ERRORS,
    NEO4J_START_ERRORS,
    NOT_ANSWERING,
    server_named,
)
from graphmem.store.statements import Statements

MINIMUM_VERSION = (5, 23)
"""The oldest Neo4j that runs every statement in ``cypher/neo4j/``: vector
indexes (``CREATE VECTOR INDEX``, ``db.index.vector.queryNodes``), which 5.x
releases before 5.13 lack or only preview, and the ``CALL (x) { … }`` subquery
of full-text search, new in 5.23. Calendar versions (2025.01 and later) are
newer than every 5.x."""

log = logging.getLogger(__name__)

COMPONENTS = "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
"""How Neo4j reports its version; every user may call it."""

RETRY_FIRST_DELAY = 1.0
RETRY_JITTER = 0.2
"""How a read is run again after a transient failure: the driver's own
schedule for managed transactions (1 s, doubling, ±20%)."""

INDEX_WAIT = 20.0
"""Seconds a statement waits for an index that is not online yet."""

_INDEX_OFFLINE = re.compile(r"index to come online|is not online|not ONLINE", re.I)
"""How Neo4j refuses a search of an index still being populated (its procedures
wait a little themselves, then fail)."""


class _RaisedAnyway(logging.Filter):
    """Drops the driver's error line for a routing failure it raises as well:
    graphmem reports the exception (one line at start, ``STORE_UNAVAILABLE`` and
    its log line after), so the driver's line would only say it twice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Unable to retrieve routing information"


logging.getLogger("neo4j.pool").addFilter(_RaisedAnyway())


def version_refusal(version: str) -> str | None:
    """Why a Neo4j reporting ``version`` (``dbms.components()``: ``5.26.20``,
    ``2025.01.0``, ``5.27-aura``) cannot serve graphmem, or None when it can. A
    version that does not start with numbers is let through: graphmem cannot
    tell it is old, and a statement it lacks fails with the server's own error."""
    found = re.match(r"\s*(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) >= MINIMUM_VERSION:
        return None
    needed = ".".join(map(str, MINIMUM_VERSION))
    return f"runs Neo4j {version.strip()}; graphmem needs Neo4j {needed} or later"


class Neo4jStore:
    """Runs named statements against one database of a Neo4j server or cluster.

    ``dialect`` picks the statement files. It is ``neo4j`` in production; the
    tests also drive this adapter over Bolt against FalkorDB with the
    ``falkordb`` dialect, to exercise the driver plumbing without Neo4j.
    """

    def __init__(
        self,
        driver: Driver,
        *,
        database: str | None = None,
        dialect: str = Dialect.NEO4J,
        timeout_s: float | None = None,
        retry_s: float = 30.0,
    ) -> None:
        self._driver = driver
        self._database = database
        self.dialect = Dialect(dialect)
        self.statements = Statements(dialect)
        self._bookmarks = GraphDatabase.bookmark_manager()
        self._work = unit_of_work(timeout=timeout_s)(_rows)
        self._timeout_s = timeout_s
        self._retry_s = retry_s
        self.server_version: str | None = None
        """What the server reported at ``connect`` (``dbms.components()``)."""

    @classmethod
    def connect(cls, settings: Settings) -> Neo4jStore:
        """A driver configured from the ``GRAPHMEM_NEO4J_*`` settings, on a server
        that has shown it can serve graphmem (``_check_server``)."""
        if not settings.neo4j.uri:
            raise StoreUnavailableError(f"{env_name('neo4j_uri')} is not set")
        auth = (
            (settings.neo4j.user, settings.neo4j.password.get_secret_value())
            if settings.neo4j.password is not None
            else None
        )
        driver = GraphDatabase.driver(
            settings.neo4j.uri,
            auth=auth,
            user_agent="graphmem",
            max_connection_pool_size=settings.neo4j.pool_size,
            connection_timeout=settings.neo4j.connection_timeout,
            connection_acquisition_timeout=settings.neo4j.acquisition_timeout,
            max_transaction_retry_time=settings.neo4j.retry_time,
            max_connection_lifetime=settings.neo4j.connection_lifetime,
            # The server's notes on a statement (a property no memory has yet, a
            # deprecated form that FalkorDB still needs) are for whoever writes the
            # statement, not for an operator's log on every call.
            notifications_disabled_categories=["UNRECOGNIZED", "DEPRECATION"],
            **_tls(settings),
        )
        timeout = (
            settings.store.query_timeout_ms / 1000 if settings.store.query_timeout_ms else None
        )
        store = cls(
            driver,
            database=settings.neo4j.database,
            timeout_s=timeout,
            retry_s=settings.neo4j.retry_time,
        )
        try:
            store.server_version = _check_server(driver, settings)
        except BaseException:
            driver.close()
            raise
        return store

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._execute(self.statements[name], with_viewer(params), READ_ACCESS)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._execute(self.statements[name], with_viewer(params), WRITE_ACCESS)

    def setup_schema(self) -> None:
        """Each DDL statement alone: Neo4j runs schema and data changes in separate
        transactions, and ``IF NOT EXISTS`` makes every one safe to repeat."""
        for ddl in self.statements.script("schema"):
            self._execute(ddl, None, WRITE_ACCESS)
        await_indexes(self)

    def close(self) -> None:
        self._driver.close()

    def _execute(self, text: str, params: Mapping[str, Any] | None, access: str) -> list[Row]:
        """One statement; one that asked an index not yet online (after a
        restart, or while it is created) runs again as the indexes come up,
        until ``INDEX_WAIT`` has passed, then is ``STORE_UNAVAILABLE``: a
        re-indexing store is an outage, never an internal error. The refused
        statement changed nothing, so running it again is safe."""
        deadline = time.monotonic() + INDEX_WAIT
        while True:
            try:
                return self._attempt(text, params, access)
            except ClientError as exc:
                if not _INDEX_OFFLINE.search(exc.message or ""):
                    raise
                if time.monotonic() >= deadline:
                    raise StoreUnavailableError(
                        "the graph database is bringing its indexes online; try again shortly"
                    ) from exc
                log.warning("a statement waits for an index to come online")
                await_indexes(self, max(0.0, deadline - time.monotonic()))

    def _attempt(self, text: str, params: Mapping[str, Any] | None, access: str) -> list[Row]:
        try:
            with self._driver.session(
                database=self._database,
                default_access_mode=access,
                bookmark_manager=self._bookmarks,
            ) as session:
                values = _parameters(params) if params else {}
                if access == READ_ACCESS:
                    return self._read(session, text, values)
                return session.execute_write(self._work, text, values)
        except NEO4J_ERRORS.raised as exc:
            NEO4J_ERRORS.reraise(exc, params)

    def _read(self, session: Session, text: str, params: dict[str, Any]) -> list[Row]:
        """One read as an auto-commit transaction, run again after a transient
        failure as the driver runs a managed one: after 1 s, then twice as long
        each time (jittered), until ``retry_s`` has passed; then the last error."""
        query = Query(text, timeout=self._timeout_s)
        deadline = time.monotonic() + self._retry_s
        delay = RETRY_FIRST_DELAY
        while True:
            try:
                return [record.data() for record in session.run(query, params)]
            except NEO4J_ERRORS.raised as exc:
                if not _retryable(exc) or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay * random.uniform(1 - RETRY_JITTER, 1 + RETRY_JITTER))
            delay *= 2

    def ping(self) -> None:
        """Whether the server answers now (readiness), in an auto-commit
        transaction, which the driver does not retry: a probe learns of an outage
        at once, not after ``GRAPHMEM_NEO4J_RETRY_TIME``. A pooled connection that
        died while idle fails once, and the driver then drops every idle one to
        that server, so a second try tells a stale connection from a server that
        is gone."""
        for attempt in (1, 2):
            try:
                with self._driver.session(
                    database=self._database, default_access_mode=READ_ACCESS
                ) as session:
                    session.run(self.statements["ping"]).consume()
                return
            except NEO4J_ERRORS.raised as exc:
                if attempt == 1 and isinstance(exc, NOT_ANSWERING):
                    continue
                NEO4J_ERRORS.reraise(exc, None)


def _check_server(driver: Driver, settings: Settings) -> str:
    """The server's version, once it has shown it can serve graphmem: it
    answers, takes the credentials, has the database and is recent enough
    (``version_refusal``). One statement in an auto-commit transaction, which
    the driver does not retry, so a server that is down stops the start at once
    rather than after ``GRAPHMEM_NEO4J_RETRY_TIME``; each refusal is one line
    naming the URI and the setting to fix. Bounded by the connection and
    acquisition timeouts."""
    try:
        with driver.session(
            database=settings.neo4j.database, default_access_mode=READ_ACCESS
        ) as session:
            rows = session.run(COMPONENTS).data()
    except NEO4J_START_ERRORS.raised as exc:
        NEO4J_START_ERRORS.reraise(exc, settings)
    kernel = next((row for row in rows if row["name"] == "Neo4j Kernel"), rows[0] if rows else {})
    version = str((kernel.get("versions") or ["unknown"])[0])
    refusal = version_refusal(version)
    if refusal is not None:
        raise StoreUnavailableError(f"{server_named(settings)} {refusal}")
    return version


def _retryable(exc: BaseException) -> bool:
    """What the driver would run a managed transaction again after: a transient
    server error, a lost or expired connection, a leader that moved."""
    return isinstance(exc, Neo4jError | DriverError) and exc.is_retryable()


def _rows(tx: ManagedTransaction, text: str, params: dict[str, Any]) -> list[Row]:
    """The transaction function: it may run more than once, so it only reads the
    result. ``Record.data()`` turns nodes and relationships into plain dicts;
    graphmem's statements return maps and scalars, which need no conversion."""
    return [record.data() for record in tx.run(text, params)]


def _parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """Values the driver can send: embeddings arrive as ``array('f')``, which
    Bolt has no type for, and become lists of floats (Neo4j's vector index
    reads ``LIST<FLOAT>``)."""
    return {key: _value(value) for key, value in params.items()}


def _value(value: Any) -> Any:
    kind = type(value)
    if kind is array:
        return value.tolist()
    if kind is list or kind is tuple:
        return [_value(item) for item in value]
    if kind is dict:
        return {key: _value(item) for key, item in value.items()}
    return value


def _tls(settings: Settings) -> dict[str, Any]:
    """Driver TLS options; the ``+s`` / ``+ssc`` URI schemes carry their own."""
    if not settings.neo4j.encrypted:
        return {}
    if settings.neo4j.trust == "custom":
        trust: Any = TrustCustomCAs(str(settings.neo4j.ca_file))
    elif settings.neo4j.trust == "all":
        trust = TrustAll()
    else:
        trust = TrustSystemCAs()
    return {"encrypted": True, "trusted_certificates": trust}
