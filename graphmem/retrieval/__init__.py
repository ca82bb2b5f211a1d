"""Retrieval: knowledgeContext (seed 002), hybrid search over vectors, full text
and relations, neighbourhoods for graph views, and the embedding backfill.

``context`` and ``search`` hold the formulas as pure code, ``fusion`` the rank
fusion, ``fulltext`` the safe query builder, ``explain`` the result models;
``plans`` makes search and knowledgeContext plans of one ``pipeline``, which
runs the ``retrievers`` and the walk along relations (``neighbourhood``);
``service`` is the ``Retrieval`` the rest of graphmem calls.

The request and result models load with the package; ``Retrieval`` and
``RetrievalConfig`` load on first use, since the service brings the
embedding runtime and numpy, which the remote client (it imports the models
only) must not wait for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from graphmem.retrieval.context import ContextRequest, tool_definition
from graphmem.retrieval.explain import (
    BackfillResult,
    ContextItem,
    ContextResult,
    Explanation,
    GraphPath,
    Neighborhood,
    PathStep,
    Retriever,
    RetrieverHit,
    SearchHit,
    SearchResult,
)
from graphmem.retrieval.search import SearchFilters, SearchMode, SearchRequest

if TYPE_CHECKING:
    from graphmem.retrieval.config import RetrievalConfig
    from graphmem.retrieval.service import Retrieval

_LAZY = {"Retrieval": "graphmem.retrieval.service", "RetrievalConfig": "graphmem.retrieval.config"}
"""The names loaded on first use, and their modules."""

__all__ = [
    "BackfillResult",
    "ContextItem",
    "ContextRequest",
    "ContextResult",
    "Explanation",
    "GraphPath",
    "Neighborhood",
    "PathStep",
    "Retrieval",
    "RetrievalConfig",
    "Retriever",
    "RetrieverHit",
    "SearchFilters",
    "SearchHit",
    "SearchMode",
    "SearchRequest",
    "SearchResult",
    "tool_definition",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
