"""Neo4j adapter of the store port (production), on the official ``neo4j`` driver.

Every statement runs in a managed transaction (``execute_read`` /
``execute_write``): the driver retries it on transient errors (a cluster
leader change, a deadlock between two writers) for up to
``GRAPHMEM_NEO4J_RETRY_TIME`` seconds. A retry reruns the whole transaction,
and each holds exactly one statement, so a failed attempt leaves nothing
half-done behind for the next one to repeat. Reads go to
followers on a ``neo4j://`` cluster; one bookmark manager per store makes a
read see the writes this store made before it, wherever it is routed.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    TrustAll,
    TrustCustomCAs,
    TrustSystemCAs,
    unit_of_work,
)
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired

from graphmem.agents import with_viewer
from graphmem.config import Settings
from graphmem.errors import StoreUnavailableError
from graphmem.statements import Statements
from graphmem.store import Row, await_indexes
from graphmem.store.dialect import Dialect


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
    ) -> None:
        self._driver = driver
        self._database = database
        self.dialect = Dialect(dialect)
        self.statements = Statements(dialect)
        self._bookmarks = GraphDatabase.bookmark_manager()
        self._work = unit_of_work(timeout=timeout_s)(_rows)

    @classmethod
    def connect(cls, settings: Settings) -> Neo4jStore:
        """A driver configured from the ``GRAPHMEM_NEO4J_*`` settings."""
        if not settings.neo4j_uri:
            raise StoreUnavailableError("GRAPHMEM_NEO4J_URI is not set")
        auth = (
            (settings.neo4j_user, settings.neo4j_password.get_secret_value())
            if settings.neo4j_password is not None
            else None
        )
        driver = GraphDatabase.driver(
            settings.neo4j_uri,
            auth=auth,
            user_agent="graphmem",
            max_connection_pool_size=settings.neo4j_pool_size,
            connection_timeout=settings.neo4j_connection_timeout,
            connection_acquisition_timeout=settings.neo4j_acquisition_timeout,
            max_transaction_retry_time=settings.neo4j_retry_time,
            max_connection_lifetime=settings.neo4j_connection_lifetime,
            **_tls(settings),
        )
        timeout = settings.query_timeout_ms / 1000 if settings.query_timeout_ms else None
        return cls(driver, database=settings.neo4j_database, timeout_s=timeout)

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
        try:
            with self._driver.session(
                database=self._database,
                default_access_mode=access,
                bookmark_manager=self._bookmarks,
            ) as session:
                run = session.execute_read if access == READ_ACCESS else session.execute_write
                return run(self._work, text, _parameters(params) if params else {})
        except AuthError as exc:
            raise StoreUnavailableError(f"Neo4j refused the credentials: {exc.message}") from exc
        except (ServiceUnavailable, SessionExpired) as exc:
            raise StoreUnavailableError(f"the graph database did not answer: {exc}") from exc


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
    if not settings.neo4j_encrypted:
        return {}
    if settings.neo4j_trust == "custom":
        trust: Any = TrustCustomCAs(str(settings.neo4j_ca_file))
    elif settings.neo4j_trust == "all":
        trust = TrustAll()
    else:
        trust = TrustSystemCAs()
    return {"encrypted": True, "trusted_certificates": trust}
