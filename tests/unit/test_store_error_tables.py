"""Each row of the adapters' error tables, with the backend exception it maps.

The exceptions are the backends' own classes, built as the client libraries
build them (redis-py from the server's error line, the Neo4j driver from a
FAILURE's code and message), so a row that stops matching what a backend
raises fails here. Every row is taken by some case below, and no row sits
behind an earlier one that takes all of its types.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DatabaseUnavailable,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)
from pydantic import SecretStr

from graphmem.domain.errors import (
    GraphMemError,
    InvalidInputError,
    StorageFullError,
    StoreUnavailableError,
)
from graphmem.settings import Settings
from graphmem.store.errors import ErrorTable, Row, always
from graphmem.store.errors_falkordb import FALKORDB_ERRORS
from graphmem.store.errors_neo4j import NEO4J_ERRORS, NEO4J_START_ERRORS

UNAVAILABLE = "STORE_UNAVAILABLE"
NO_SUCH_SOCKET = (
    "Error 2 connecting to unix socket: /data/falkordb.sock. No such file or directory."
)
REFUSED = (
    "Couldn't connect to db.example:7687 (resolved to ('10.0.0.7:7687',)):\n"
    "Failed to establish connection to ResolvedIPv4Address(('10.0.0.7', 7687)) "
    "(reason [Errno 111] Connection refused)"
)
DEFUNCT = "Failed to read from defunct connection IPv4Address(('10.0.0.7', 7687))"
SURROGATE = UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")


def server_error(code: str, message: str) -> Neo4jError:
    """The driver's exception for a server's FAILURE: the class its code picks."""
    return Neo4jError._hydrate_neo4j(code=code, message=message)


UNAUTHORIZED = server_error(
    "Neo.ClientError.Security.Unauthorized",
    "The client is unauthorized due to authentication failure.",
)
DATABASE_DOWN = server_error(
    "Neo.TransientError.General.DatabaseUnavailable", "Database 'memories' is unavailable."
)
NOT_FOUND = server_error("Neo.ClientError.Database.DatabaseNotFound", "Graph not found: memories")
SYNTAX = server_error("Neo.ClientError.Statement.SyntaxError", "Invalid input 'x'")
INDEX_OFFLINE = server_error(
    "Neo.ClientError.Procedure.ProcedureCallFailed",
    "Failed to invoke procedure: Index 'memory_text' is not online",
)

FALKORDB_CASES = [
    pytest.param(
        redis.ConnectionError(NO_SUCH_SOCKET),
        None,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"the graph database did not answer: {NO_SUCH_SOCKET}",
        ),
        id="connection-error",
    ),
    pytest.param(
        redis.TimeoutError("Timeout reading from socket"),
        {"content": "fine"},
        (
            StoreUnavailableError,
            UNAVAILABLE,
            "the graph database did not answer: Timeout reading from socket",
        ),
        id="timeout",
    ),
    pytest.param(
        redis.ResponseError("MISCONF Errors writing to the AOF file: No space left on device"),
        {"content": "a\x00b"},
        (
            StorageFullError,
            "STORAGE_FULL",
            "disk full: the graph database cannot save writes until space is freed",
        ),
        id="misconf-no-space",
    ),
    pytest.param(
        redis.ResponseError("MISCONF Errors writing to the AOF file: Read-only file system"),
        None,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            "the graph database cannot write to disk: "
            "MISCONF Errors writing to the AOF file: Read-only file system",
        ),
        id="misconf-other",
    ),
    pytest.param(
        redis.ResponseError("errMsg: Invalid input '\"': expected a string literal"),
        {"id": "m1", "content": "cut \x00 here"},
        (
            InvalidInputError,
            "INVALID_INPUT",
            "content: text must not contain NUL characters or unpaired surrogates",
            "content",
        ),
        id="nul-in-text",
    ),
    pytest.param(
        SURROGATE,
        {"tags": ["fine", {"k": "\ud800"}]},
        (
            InvalidInputError,
            "INVALID_INPUT",
            "tags: text must not contain NUL characters or unpaired surrogates",
            "tags",
        ),
        id="unpaired-surrogate",
    ),
]

NEO4J_CASES = [
    pytest.param(
        UNAUTHORIZED,
        None,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            "Neo4j refused the credentials: "
            "The client is unauthorized due to authentication failure.",
        ),
        id="auth",
    ),
    pytest.param(
        DATABASE_DOWN,
        None,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            "the Neo4j database is not available: Database 'memories' is unavailable.",
        ),
        id="database-unavailable",
    ),
    pytest.param(
        ServiceUnavailable(REFUSED),
        None,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            "the graph database did not answer: [Errno 111] Connection refused",
        ),
        id="service-unavailable",
    ),
    pytest.param(
        SessionExpired(DEFUNCT),
        None,
        (StoreUnavailableError, UNAVAILABLE, f"the graph database did not answer: {DEFUNCT}"),
        id="session-expired",
    ),
    pytest.param(
        SURROGATE,
        {"content": "\ud800"},
        (
            InvalidInputError,
            "INVALID_INPUT",
            "content: text must not contain unpaired surrogates",
            "content",
        ),
        id="unpaired-surrogate",
    ),
    pytest.param(
        OverflowError("Integer out of bounds (64-bit signed integer values only)"),
        {"limit": 2**64},
        (InvalidInputError, "INVALID_INPUT", "limit: an integer must fit in 64 bits", "limit"),
        id="integer-beyond-64-bits",
    ),
]

START = Settings(
    backend="neo4j",
    neo4j_uri="neo4j://graphmem:secret@db.example:7687",
    neo4j_user="graphmem",
    neo4j_password=SecretStr("secret"),
    neo4j_database="memories",
)
NO_PASSWORD = START.with_values(neo4j_password=None)
WHERE = "Neo4j at neo4j://db.example:7687"

START_CASES = [
    pytest.param(
        UNAUTHORIZED,
        NO_PASSWORD,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"{WHERE} requires a password: set GRAPHMEM_NEO4J_PASSWORD",
        ),
        id="auth-without-password",
    ),
    pytest.param(
        UNAUTHORIZED,
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"{WHERE} refused user 'graphmem': The client is unauthorized due to "
            "authentication failure. (GRAPHMEM_NEO4J_USER, GRAPHMEM_NEO4J_PASSWORD)",
        ),
        id="auth-with-password",
    ),
    pytest.param(
        DATABASE_DOWN,
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"{WHERE} answers, but its database 'memories' is not available: "
            "Database 'memories' is unavailable.",
        ),
        id="database-unavailable",
    ),
    pytest.param(
        ServiceUnavailable(REFUSED),
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"cannot reach {WHERE} (GRAPHMEM_NEO4J_URI): [Errno 111] Connection refused",
        ),
        id="service-unavailable",
    ),
    pytest.param(
        SessionExpired(DEFUNCT),
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"cannot reach {WHERE} (GRAPHMEM_NEO4J_URI): {DEFUNCT}",
        ),
        id="session-expired",
    ),
    pytest.param(
        NOT_FOUND,
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"{WHERE} has no database 'memories' (GRAPHMEM_NEO4J_DATABASE)",
        ),
        id="database-not-found",
    ),
    pytest.param(
        SYNTAX,
        START,
        (
            StoreUnavailableError,
            UNAVAILABLE,
            f"{WHERE} refused graphmem's first statement: Invalid input 'x'",
        ),
        id="other-client-error",
    ),
]

TABLES: list[tuple[ErrorTable[Any], list[Any]]] = [
    (FALKORDB_ERRORS, FALKORDB_CASES),
    (NEO4J_ERRORS, NEO4J_CASES),
    (NEO4J_START_ERRORS, START_CASES),
]


def check(table: ErrorTable[Any], exc: Exception, context: Any, expected: tuple[Any, ...]) -> None:
    """What a client sees for ``exc``: the error's class, code, message and
    field; and it is raised from ``exc``, so the log keeps the backend's detail."""
    kind, code, message, *field = expected
    with pytest.raises(GraphMemError) as raised:
        table.reraise(exc, context)
    error = raised.value
    assert (type(error), error.code, error.message, error.field) == (
        kind,
        code,
        message,
        field[0] if field else None,
    )
    assert error.__cause__ is exc


@pytest.mark.parametrize(("exc", "params", "expected"), FALKORDB_CASES)
def test_falkordb_rows(exc: Exception, params: Any, expected: tuple[Any, ...]) -> None:
    check(FALKORDB_ERRORS, exc, params, expected)


@pytest.mark.parametrize(("exc", "params", "expected"), NEO4J_CASES)
def test_neo4j_rows(exc: Exception, params: Any, expected: tuple[Any, ...]) -> None:
    check(NEO4J_ERRORS, exc, params, expected)


@pytest.mark.parametrize(("exc", "settings", "expected"), START_CASES)
def test_neo4j_start_rows(exc: Exception, settings: Settings, expected: tuple[Any, ...]) -> None:
    check(NEO4J_START_ERRORS, exc, settings, expected)


@pytest.mark.parametrize(
    ("table", "exc", "context"),
    [
        pytest.param(
            FALKORDB_ERRORS,
            redis.ResponseError("Unknown function 'nope'"),
            {"content": "fine"},
            id="falkordb-refusal-of-a-clean-statement",
        ),
        pytest.param(FALKORDB_ERRORS, SURROGATE, None, id="falkordb-unicode-not-from-params"),
        pytest.param(NEO4J_ERRORS, INDEX_OFFLINE, None, id="neo4j-index-offline-is-a-retry"),
        pytest.param(NEO4J_ERRORS, SYNTAX, {"content": "fine"}, id="neo4j-statement-refused"),
        pytest.param(
            NEO4J_ERRORS,
            OverflowError("math range error"),
            {"n": 1},
            id="neo4j-overflow-not-from-params",
        ),
    ],
)
def test_what_no_row_takes_is_raised_as_it_is(
    table: ErrorTable[Any], exc: Exception, context: Any
) -> None:
    """A fault of graphmem's own statement reaches the log unchanged."""
    assert table.translate(exc, context) is None
    with pytest.raises(type(exc)) as raised:
        table.reraise(exc, context)
    assert raised.value is exc


def taking_row(table: ErrorTable[Any], exc: Exception, context: Any) -> Row[Any]:
    return next(row for row in table.rows if isinstance(exc, row.raised) and row.when(exc, context))


@pytest.mark.parametrize(("table", "cases"), TABLES)
def test_every_row_is_taken_by_a_case(table: ErrorTable[Any], cases: list[Any]) -> None:
    """A row no backend exception reaches is dead, or untested."""
    taken = {id(taking_row(table, *case.values[:2])) for case in cases}
    assert [row for row in table.rows if id(row) not in taken] == []


def shadowed(table: ErrorTable[Any]) -> list[tuple[int, type[Exception]]]:
    """Each (row, type) that an earlier row without a test takes first: a more
    general type listed before a more specific one, or the same type twice."""
    found = []
    for index, row in enumerate(table.rows):
        for kind in row.raised:
            if any(
                earlier.when is always and issubclass(kind, earlier.raised)
                for earlier in table.rows[:index]
            ):
                found.append((index, kind))
    return found


@pytest.mark.parametrize("table", [table for table, _ in TABLES])
def test_no_row_is_unreachable(table: ErrorTable[Any]) -> None:
    assert shadowed(table) == []


def test_a_general_type_before_a_specific_one_is_unreachable() -> None:
    """The check above finds the mistake it is there for."""

    def unavailable(exc: Exception, context: Any) -> GraphMemError:
        return StoreUnavailableError(str(exc))

    table: ErrorTable[Any] = ErrorTable(
        Row((ClientError,), unavailable),
        Row((AuthError, DatabaseUnavailable), unavailable),
    )
    assert shadowed(table) == [(1, AuthError)]
