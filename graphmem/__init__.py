"""graphmem: a graph-backed memory store for AI agents.

The public names are imported on first use: importing any submodule runs
this file first, and the prompt hook (``graphmem inject``) must not pay for
the store, the services and their dependencies on every prompt.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str

    from graphmem.api import GraphMem
    from graphmem.client import AsyncClient, Client
    from graphmem.client.errors import ServerError, ServerUnreachableError
    from graphmem.domain.clock import ManualClock, SystemClock
    from graphmem.domain.errors import (
        ConflictError,
        ForbiddenError,
        GraphMemError,
        InvalidInputError,
        MissingExtraError,
        NotFoundError,
        PayloadTooLargeError,
        RateLimitedError,
        StorageFullError,
        StoreUnavailableError,
        UnauthenticatedError,
    )
    from graphmem.domain.kinds import (
        MemoryType,
        RelationType,
        SessionState,
        Source,
        Status,
        Tier,
        Visibility,
    )
    from graphmem.domain.models import Memory, MemoryFilter, MemoryInput, MemoryUpdate
    from graphmem.domain.relations import Relation
    from graphmem.domain.scoring import DEFAULT_PRESET, JARVIS_PRESET, ImportanceScorer
    from graphmem.domain.sessions import Session
    from graphmem.settings import Settings

_HOMES = {
    "graphmem.api": ["GraphMem"],
    "graphmem.client": ["AsyncClient", "Client"],
    "graphmem.client.errors": ["ServerError", "ServerUnreachableError"],
    "graphmem.domain.clock": ["ManualClock", "SystemClock"],
    "graphmem.settings": ["Settings"],
    "graphmem.domain.errors": [
        "ConflictError",
        "ForbiddenError",
        "GraphMemError",
        "InvalidInputError",
        "MissingExtraError",
        "NotFoundError",
        "PayloadTooLargeError",
        "RateLimitedError",
        "StorageFullError",
        "StoreUnavailableError",
        "UnauthenticatedError",
    ],
    "graphmem.domain.kinds": [
        "MemoryType",
        "RelationType",
        "SessionState",
        "Source",
        "Status",
        "Tier",
        "Visibility",
    ],
    "graphmem.domain.models": ["Memory", "MemoryFilter", "MemoryInput", "MemoryUpdate"],
    "graphmem.domain.relations": ["Relation"],
    "graphmem.domain.scoring": ["DEFAULT_PRESET", "JARVIS_PRESET", "ImportanceScorer"],
    "graphmem.domain.sessions": ["Session"],
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def _version() -> str:
    """The installed distribution's version; looked up on first use, since reading
    package metadata costs the prompt hook time it does not have."""
    from importlib import metadata

    try:
        return metadata.version("graphmem")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})


__all__ = [
    "DEFAULT_PRESET",
    "JARVIS_PRESET",
    "AsyncClient",
    "Client",
    "ConflictError",
    "ForbiddenError",
    "GraphMem",
    "GraphMemError",
    "ImportanceScorer",
    "InvalidInputError",
    "ManualClock",
    "Memory",
    "MemoryFilter",
    "MemoryInput",
    "MemoryType",
    "MemoryUpdate",
    "MissingExtraError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RateLimitedError",
    "Relation",
    "RelationType",
    "ServerError",
    "ServerUnreachableError",
    "Session",
    "SessionState",
    "Settings",
    "Source",
    "Status",
    "StorageFullError",
    "StoreUnavailableError",
    "SystemClock",
    "Tier",
    "UnauthenticatedError",
    "Visibility",
]
