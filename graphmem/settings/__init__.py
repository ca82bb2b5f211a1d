"""Settings, read from ``GRAPHMEM_*`` environment variables, nested by concern.

The settings sit above the domain, which takes plain values and reads no
environment, and below the store and the services they configure. Each
setting is declared once, in its section (``graphmem.settings.sections``): its
flat name is its alias there, its keyword to ``Settings`` and, behind the
prefix, its environment variable (``graphmem.settings.names``), so
``GRAPHMEM_NEO4J_URI``, ``Settings(neo4j_uri=...)`` and ``settings.neo4j.uri``
are one setting.

The names are imported on first use: the prompt hook and the client side of
the CLI read a few variables by name and must not pay for the settings model.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from graphmem.settings.names import PREFIX, env_name

if TYPE_CHECKING:
    from graphmem.settings.model import Setting, Settings, setting_named, settings_declared
    from graphmem.settings.sections import (
        MAX_ALIASES,
        DefaultSettings,
        EmbedderName,
        EmbeddingSettings,
        Neo4jSettings,
        RetentionSettings,
        ServerSettings,
        StoreSettings,
        is_loopback,
    )

_HOMES = {
    "graphmem.settings.model": ["Setting", "Settings", "setting_named", "settings_declared"],
    "graphmem.settings.sections": [
        "MAX_ALIASES",
        "DefaultSettings",
        "EmbedderName",
        "EmbeddingSettings",
        "Neo4jSettings",
        "RetentionSettings",
        "ServerSettings",
        "StoreSettings",
        "is_loopback",
    ],
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem.settings' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})


__all__ = [
    "MAX_ALIASES",
    "PREFIX",
    "DefaultSettings",
    "EmbedderName",
    "EmbeddingSettings",
    "Neo4jSettings",
    "RetentionSettings",
    "ServerSettings",
    "Setting",
    "Settings",
    "StoreSettings",
    "env_name",
    "is_loopback",
    "setting_named",
    "settings_declared",
]
