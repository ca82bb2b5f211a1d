"""The Neo4j adapter's error tables: what the driver's exceptions become.

Two tables, because the same failure is told two ways. ``NEO4J_ERRORS`` is
for a running store (``Neo4jStore._attempt`` and ``ping``): a server that
stops answering is ``STORE_UNAVAILABLE`` until it is back, and the detail is
for the log. ``NEO4J_START_ERRORS`` is for the one statement ``connect`` sends
first (``_check_server``): each refusal is one line naming the URI and the
setting to fix, which is what an operator starting graphmem needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from neo4j.exceptions import (
    AuthError,
    ClientError,
    DatabaseUnavailable,
    ServiceUnavailable,
    SessionExpired,
)

from graphmem.domain.errors import InvalidInputError, StoreUnavailableError
from graphmem.settings import Settings, env_name
from graphmem.store.errors import ErrorTable, Params, Row

NOT_ANSWERING = (ServiceUnavailable, SessionExpired)
"""What the driver raises, once its retries are spent, when the server does not
answer: down, unreachable or restarting. A pooled connection that died while
idle raises them too, which is why ``ping`` tries twice."""


def _credentials(exc: AuthError, params: Params) -> StoreUnavailableError:
    return StoreUnavailableError(f"Neo4j refused the credentials: {exc.message}")


def _database_down(exc: DatabaseUnavailable, params: Params) -> StoreUnavailableError:
    return StoreUnavailableError(f"the Neo4j database is not available: {exc.message}")


def _not_answering(exc: Exception, params: Params) -> StoreUnavailableError:
    """Clients see a generic message; this one, with the driver's detail, goes
    to the log."""
    return StoreUnavailableError(f"the graph database did not answer: {reason(exc)}")


def _holds_unsendable(exc: Exception, params: Params) -> bool:
    """The driver refused to send a value, before the server saw anything."""
    return unsendable(params) is not None


def _unsendable(exc: Exception, params: Params) -> InvalidInputError:
    found = unsendable(params)
    assert found is not None, "taken only when a parameter is unsendable"
    return found


NEO4J_ERRORS: ErrorTable[Params] = ErrorTable(
    Row((AuthError,), _credentials),
    Row((DatabaseUnavailable,), _database_down),
    Row(NOT_ANSWERING, _not_answering),
    Row((UnicodeEncodeError, OverflowError), _unsendable, when=_holds_unsendable),
)
"""A running store's rows in the order they are tried. A statement refused
because an index is not online yet is a retry (``Neo4jStore._execute``), and
any other refusal is raised as it is."""


def server_named(settings: Settings) -> str:
    """How a start message names the server: without credentials written into
    its URI."""
    parts = urlsplit(settings.neo4j.uri or "")
    return f"Neo4j at {parts._replace(netloc=parts.netloc.rpartition('@')[2]).geturl()}"


def _no_password(exc: AuthError, settings: Settings) -> bool:
    return settings.neo4j.password is None


def _password_needed(exc: AuthError, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"{server_named(settings)} requires a password: set {env_name('neo4j_password')}"
    )


def _user_refused(exc: AuthError, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"{server_named(settings)} refused user {settings.neo4j.user!r}: {exc.message} "
        f"({env_name('neo4j_user')}, {env_name('neo4j_password')})"
    )


def _database_not_started(exc: DatabaseUnavailable, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"{server_named(settings)} answers, but its database {settings.neo4j.database!r} "
        f"is not available: {exc.message}"
    )


def _unreachable(exc: Exception, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"cannot reach {server_named(settings)} ({env_name('neo4j_uri')}): {reason(exc)}"
    )


def _no_such_database(exc: ClientError, settings: Settings) -> bool:
    return exc.code == "Neo.ClientError.Database.DatabaseNotFound"


def _database_missing(exc: ClientError, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"{server_named(settings)} has no database {settings.neo4j.database!r} "
        f"({env_name('neo4j_database')})"
    )


def _statement_refused(exc: ClientError, settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"{server_named(settings)} refused graphmem's first statement: {exc.message}"
    )


NEO4J_START_ERRORS: ErrorTable[Settings] = ErrorTable(
    Row((AuthError,), _password_needed, when=_no_password),
    Row((AuthError,), _user_refused),
    Row((DatabaseUnavailable,), _database_not_started),
    Row(NOT_ANSWERING, _unreachable),
    Row((ClientError,), _database_missing, when=_no_such_database),
    Row((ClientError,), _statement_refused),
)
"""The start check's rows in the order they are tried: ``AuthError`` is a
``ClientError`` and comes first."""


def reason(exc: Exception) -> str:
    """The driver's account of a failed connection on one line: its last line
    names the cause (``[Errno 111] Connection refused``, a TLS failure, a
    handshake that timed out)."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    cause = re.search(r"\(reason (.+)\)$", lines[-1])
    return cause[1] if cause else lines[-1]


def unsendable(params: Mapping[str, Any] | None) -> InvalidInputError | None:
    """The error naming the first parameter Bolt cannot carry: text with an
    unpaired surrogate (no UTF-8 form) or an integer beyond 64 bits. graphmem's
    input models refuse both first; this names any that got past them, as the
    FalkorDB adapter does for what its server cannot take."""

    def problem(value: Any) -> str | None:
        if isinstance(value, str):
            try:
                value.encode()
            except UnicodeEncodeError:
                return "text must not contain unpaired surrogates"
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -(2**63) <= value < 2**63:
                return "an integer must fit in 64 bits"
        elif isinstance(value, list | tuple):
            return next(filter(None, map(problem, value)), None)
        elif isinstance(value, dict):
            return next(filter(None, map(problem, [*value, *value.values()])), None)
        return None

    for name, value in (params or {}).items():
        found = problem(value)
        if found is not None:
            return InvalidInputError(f"{name}: {found}", field=name)
    return None
