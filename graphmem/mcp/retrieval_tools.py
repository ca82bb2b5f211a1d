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
from graphmem.mcp.params import IsoTime, own, request_fields
from graphmem.mcp.results import (
    ContextView,
    MemoriesView,
    NeighborhoodView,
    SearchView,
)
from graphmem.mcp.tool import Tool
from graphmem.mcp.vocabulary import (
    AS_OF,
    READ_ONLY,
    MemoryId,
    ViewOf,
    memory_id,
)
from graphmem.settings import MAX_ALIASES

RELATIONS_WALKED = domain.SearchRequest.model_fields["relation_types"].description
"""Said of the relations search walks, which a tool takes as null when omitted."""

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
            *request_fields(
                domain.ContextRequest,
                after=[
                    own(
                        "record_access",
                        Annotated[
                            bool | None,
                            Field(
                                description="Count a retrieval on each returned memory; the "
                                "server's setting when omitted."
                            ),
                        ],
                        None,
                        follows="session_id",
                    )
                ],
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
        'time in which it held ("in May", "as of June 3, 2025"), in every mode; in HYBRID and '
        "GRAPH a query that names a time also ranks memories by how near their time is to it, "
        'and one asking for a time alone ("What happened on March 4, 2025?") is answered by '
        "the memories of that time.",
        READ_ONLY,
        [
            *request_fields(domain.SearchRequest, "query", "mode", "limit", "depth"),
            # Omitted, the request's own default: the relations worth walking.
            own(
                "relation_types",
                Annotated[
                    list[kinds.RelationType] | None,
                    Field(description=RELATIONS_WALKED),
                ],
                None,
                at=(),
            ),
            *request_fields(
                domain.SearchFilters,
                "types",
                "tiers",
                "statuses",
                "tags",
                "session_id",
                "min_confidence",
                "include_candidates",
                "include_archived",
                "include_superseded",
                at=("filters",),
            ),
            *request_fields(domain.SearchRequest, "min_relevance"),
            *request_fields(
                domain.SearchFilters, "occurred_after", "occurred_before", at=("filters",)
            ),
            *request_fields(domain.SearchRequest, "as_of"),
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
