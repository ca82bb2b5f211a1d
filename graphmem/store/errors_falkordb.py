"""The FalkorDB adapter's error table: what a failed statement's exception
from redis-py becomes (``FalkorStore`` applies it in ``_send``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis

from graphmem.domain.errors import InvalidInputError, StorageFullError, StoreUnavailableError
from graphmem.store.errors import ErrorTable, Params, Row

log = logging.getLogger("graphmem.store.falkordb")
"""The adapter's logger: an operator reads these lines beside its others."""


def _unavailable(exc: redis.RedisError, params: Params) -> StoreUnavailableError:
    """The error for an unreachable database; the detail (socket paths, hosts)
    goes to the log, under the request id, and to no client."""
    log.warning("the graph database did not answer: %s", exc)
    return StoreUnavailableError(f"the graph database did not answer: {exc}")


def _cannot_write(exc: redis.ResponseError, params: Params) -> bool:
    """``MISCONF``: the server could not write its append-only file, so it
    refused the statement and applied nothing."""
    return str(exc).startswith("MISCONF")


def _out_of_space(exc: redis.ResponseError, params: Params) -> bool:
    return _cannot_write(exc, params) and "no space" in str(exc).lower()


def _disk_full(exc: redis.ResponseError, params: Params) -> StorageFullError:
    log.error("the graph database cannot write to disk: %s", exc)
    return StorageFullError()


def _disk_refused(exc: redis.ResponseError, params: Params) -> StoreUnavailableError:
    log.error("the graph database cannot write to disk: %s", exc)
    return StoreUnavailableError(f"the graph database cannot write to disk: {exc}")


def _holds_unsendable(exc: Exception, params: Params) -> bool:
    """Looked for only once a statement failed, so sending costs nothing extra."""
    return unsendable(params) is not None


def _unsendable_text(exc: Exception, params: Params) -> InvalidInputError:
    field = unsendable(params)
    return InvalidInputError(
        f"{field}: text must not contain NUL characters or unpaired surrogates", field=field
    )


FALKORDB_ERRORS: ErrorTable[Params] = ErrorTable(
    Row((redis.ConnectionError, redis.TimeoutError), _unavailable),
    Row((redis.ResponseError,), _disk_full, when=_out_of_space),
    Row((redis.ResponseError,), _disk_refused, when=_cannot_write),
    Row((redis.ResponseError, UnicodeEncodeError), _unsendable_text, when=_holds_unsendable),
)
"""The rows in the order they are tried; any other refusal is raised as it is."""


def unsendable(params: Mapping[str, Any] | None) -> str | None:
    """The first parameter holding text the server cannot take: a NUL ends
    FalkorDB's query text early, and an unpaired surrogate has no UTF-8 form."""

    def bad(value: Any) -> bool:
        if isinstance(value, str):
            try:
                value.encode()
            except UnicodeEncodeError:
                return True
            return "\x00" in value
        if isinstance(value, list | tuple):
            return any(bad(item) for item in value)
        if isinstance(value, dict):
            return any(bad(key) or bad(item) for key, item in value.items())
        return False

    return next((name for name, value in (params or {}).items() if bad(value)), None)
