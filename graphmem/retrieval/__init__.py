"""Retrieval: knowledgeContext (seed 002), hybrid search over vectors, full text
and relations, neighbourhoods for graph views, and the embedding backfill.

``context`` and ``search`` hold the formulas as pure code, ``fusion`` the rank
fusion, ``fulltext`` the safe query builder, ``explain`` the result models and
``service`` the part that talks to the store.
"""

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
from graphmem.retrieval.service import Retrieval, RetrievalConfig

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
