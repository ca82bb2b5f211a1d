"""A remote graphmem server with the in-process API: ``Client`` and ``AsyncClient``.

Both have ``GraphMem``'s methods, arguments, models and exceptions
(tests/integration/test_client.py holds them to it), sent as GraphQL over
HTTP with ``httpx``.

Each class loads on first use: the CLI's server-first commands send the
catalogue's requests (``graphmem.operations``) through a client of their own
and need neither class, nor the asyncio that ``AsyncClient`` brings.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.client.aio import AsyncClient
    from graphmem.client.errors import ServerError, ServerUnreachableError, StoredTimeWarning
    from graphmem.client.sync import Client
    from graphmem.client.transport import RetryPolicy

__all__ = [
    "AsyncClient",
    "Client",
    "RetryPolicy",
    "ServerError",
    "ServerUnreachableError",
    "StoredTimeWarning",
]

_HOME_OF = {
    "AsyncClient": "graphmem.client.aio",
    "Client": "graphmem.client.sync",
    "RetryPolicy": "graphmem.client.transport",
    "ServerError": "graphmem.client.errors",
    "ServerUnreachableError": "graphmem.client.errors",
    "StoredTimeWarning": "graphmem.client.errors",
}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})
