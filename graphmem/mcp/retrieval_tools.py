"""The tools that read: what bears on a task, search, memories by id and their
neighbourhood."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from graphmem.domain import kinds
from graphmem.domain import retrieval as domain
from graphmem.domain.retrieval import search as search_limits
from graphmem.mcp import results
from graphmem.mcp.params import IsoTime, fields, own
from graphmem.mcp.results import (
    ContextView,
    MemoriesView,
    NeighborhoodView,
    SearchView,
)
from graphmem.mcp.tool import Tool
from graphmem.mcp.vocabulary import (
    AS_OF,
    MIN_CONFIDENCE,
    MIN_RELEVANCE,
    OCCURRED_AFTER,
    OCCURRED_BEFORE,
    READ_ONLY,
    TAGS,
    MemoryId,
    ViewOf,
    memory_id,
)
from graphmem.settings import MAX_ALIASES

MAX_IDS = MAX_ALIASES
"""Memories read in one call: as many as one GraphQL document asks for by id."""

RETRIEVAL_TOOLS = (
    Tool(
        "knowledge_context",
        "What the memory store knows that bears on what you are about to do, best first: a "
        "text block to put in your prompt plus each memory with its score. Only active, "
        "current memories are returned (archived ones too, marked, with include_archived); "
        "each live one returned counts as retrieved (not as used: record_feedback or pin "
        "says a memory helped).",
        ToolAnnotations(read_only_hint=False, open_world_hint=False),
        [
            *fields(
                domain.ContextRequest,
                context_hint="What you are about to do or discuss; memories are matched "
                "against it.",
                include_types="Only memories of these types; all types when omitted.",
                min_confidence=MIN_CONFIDENCE,
                max_results="How many memories.",
                recency_weight="Weight of recency; the other factors rebalance to sum to 1.",
                include_superseded="Also return memories a newer one supersedes.",
                include_archived="Also archived memories, each marked archived (restore one "
                "to use it again).",
                session_id="Only this session's memories.",
            ),
            own(
                "record_access",
                Annotated[
                    bool | None,
                    Field(
                        description="Count a retrieval on each returned memory; the server's "
                        "setting when omitted."
                    ),
                ],
                None,
            ),
            *fields(
                domain.ContextRequest,
                min_relevance=MIN_RELEVANCE,
                occurred_after=OCCURRED_AFTER,
                occurred_before=OCCURRED_BEFORE,
                as_of=AS_OF,
            ),
            own("agent_id", ViewOf, None),
        ],
        Annotated[CallToolResult, ContextView],
        results.context_answer,
        request=("context_hint", domain.ContextRequest),
    ),
    Tool(
        "search",
        "Hybrid search over meaning, words and relations; every hit says why it scored what "
        "it did, which index found it and which relations brought it in. A superseded hit is "
        "replaced by its successor unless include_superseded is set or the query names a past "
        'time in which it held ("in May", "as of June 3, 2025"): a query that names a '
        "time ranks memories by how near their time is to it.",
        READ_ONLY,
        [
            *fields(
                domain.SearchRequest,
                query="What to look for, in words.",
                mode="HYBRID: both indexes plus relations; VECTOR or FULLTEXT: one index; "
                "GRAPH: both indexes plus at least one relation walked from the best few hits, "
                "with no cap on what that brings in.",
                limit="How many hits.",
                depth="Relations walked from each hit.",
            ),
            # Omitted, the request's own default: the relations worth walking.
            own(
                "relation_types",
                Annotated[
                    list[kinds.RelationType] | None,
                    Field(
                        description="Relations to walk (not SUPERSEDES); ENABLES, CONSTRAINS "
                        "and RELATED_TO when omitted."
                    ),
                ],
                None,
                at=(),
            ),
            *fields(
                domain.SearchFilters,
                at=("filters",),
                types="Only memories of these types.",
                tiers="Only these tiers.",
                statuses="Only these statuses.",
                tags=TAGS,
                session_id="Only this session's.",
                min_confidence=MIN_CONFIDENCE,
                include_candidates="Also unconfirmed candidates.",
                include_archived="Also archived memories; each such hit is marked archived.",
                include_superseded="Keep superseded hits instead of their successors.",
            ),
            *fields(domain.SearchRequest, min_relevance=MIN_RELEVANCE),
            *fields(
                domain.SearchFilters,
                at=("filters",),
                occurred_after=OCCURRED_AFTER,
                occurred_before=OCCURRED_BEFORE,
            ),
            *fields(domain.SearchRequest, as_of=AS_OF),
            own("agent_id", ViewOf, None),
        ],
        SearchView,
        lambda result, _: results.search_view(result),
        request=("query", domain.SearchRequest),
    ),
    Tool(
        "get_memories",
        "Read memories by id, as they are now or, with as_of, as they stood then. An id the "
        "project has no memory for (or none you may see, or none written by as_of) is left "
        "out of the answer rather than an error. Reading counts no use and no retrieval.",
        READ_ONLY,
        [
            own(
                "ids",
                Annotated[
                    Sequence[MemoryId],
                    Field(min_length=1, max_length=MAX_IDS, description="The memories' ids."),
                ],
                into="memory_ids",
                shape=lambda ids: list(dict.fromkeys(ids)),
            ),
            own("as_of", Annotated[IsoTime | None, Field(description=AS_OF)], None),
        ],
        MemoriesView,
        results.memories_found,
        operation="get_many",
    ),
    Tool(
        "neighborhood",
        "A memory and every memory within depth relations of it, with the typed relations "
        "between them: what constrains, enables, relates to or supersedes it. With as_of, "
        "the memories and relations that existed then, as they stood (no nodes when the "
        "memory was not yet written). An id the project has no memory for is a NOT_FOUND "
        "error.",
        READ_ONLY,
        [
            memory_id(),
            own(
                "depth",
                Annotated[
                    int,
                    Field(
                        ge=1,
                        le=search_limits.MAX_DEPTH,
                        description="Relations walked from the memory.",
                    ),
                ],
                1,
            ),
            own(
                "relation_types",
                Annotated[
                    list[kinds.RelationType] | None,
                    Field(description="Relations to walk and return; every type when omitted."),
                ],
                None,
            ),
            own("as_of", Annotated[IsoTime | None, Field(description=AS_OF)], None),
        ],
        NeighborhoodView,
    ),
)
