"""What retrieval asks and answers, and its formulas, as pure code.

``context`` holds the knowledgeContext request and its scoring, ``search`` the
search request, filters and its scoring, ``fusion`` the rank fusion,
``exchange`` how a conversation's turns are paired, ``explain`` the result
models. The service that runs them against the store is
``graphmem.services.retrieval``; the remote client imports only this.
"""

from __future__ import annotations

from graphmem.domain.retrieval.context import ContextRequest, tool_definition
from graphmem.domain.retrieval.explain import (
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
    context_block,
)
from graphmem.domain.retrieval.search import SearchFilters, SearchMode, SearchRequest

__all__ = [
    "BackfillResult",
    "ContextItem",
    "ContextRequest",
    "ContextResult",
    "Explanation",
    "GraphPath",
    "Neighborhood",
    "PathStep",
    "Retriever",
    "RetrieverHit",
    "SearchFilters",
    "SearchHit",
    "SearchMode",
    "SearchRequest",
    "SearchResult",
    "context_block",
    "tool_definition",
]
