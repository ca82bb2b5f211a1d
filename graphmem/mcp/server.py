"""The MCP server: GraphMem's agent-facing operations, one tool each.

A tool names the catalogue operation it runs (graphmem.operations), which
says who may call it and which ``GraphMem`` method serves it, and runs the
way every tool does (graphmem.mcp.tool). What a tool adds is what an agent
reads: its description, its parameters (a request model's fields wherever the
operation takes one, described for an agent; graphmem.mcp.params) and the
compact view it answers with (graphmem.mcp.results).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from graphmem import __version__
from graphmem.api import GraphMem
from graphmem.domain import capsules, models
from graphmem.domain import retrieval as domain
from graphmem.domain.auth import OPEN, Principal
from graphmem.domain.config import MAX_ALIASES
from graphmem.domain.models import MAX_PAGE_SIZE, Identifier, MemoryInput, ReviewFilter
from graphmem.domain.retrieval import search as search_limits
from graphmem.mcp import results
from graphmem.mcp.params import IsoTime, Param, fields, own
from graphmem.mcp.results import (
    ContextView,
    FailureResult,
    ForgetResult,
    MemoriesView,
    MemoryView,
    NeighborhoodView,
    ProjectsView,
    RelationView,
    RememberResult,
    ReviewView,
    SearchView,
    SharingEventsView,
)
from graphmem.mcp.tool import GraphMemMCP, Tool, served

INSTRUCTIONS = """\
graphmem is this agent's long-term memory. Before starting a task, call
knowledge_context with a sentence about the task and use what it returns.
When you learn something worth keeping (a decision, a convention, a lesson, a
risk), call remember; pass suggested_by="agent" when the user asked you to
remember it. Rate what helped or misled you with record_feedback, pin rules
that must not be forgotten, link memories with relate, and when a memory is
replaced by a newer one, call supersede instead of forgetting the old one.
get_memories reads memories whose ids you have; neighborhood shows what
constrains, enables or relates to one.
When a step fails, call record_failure with the error (and the fix once you
find it): a failure seen before comes back with what was learned from it.
"""

MAX_IDS = MAX_ALIASES
"""Memories read in one call: as many as one GraphQL document asks for by id."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTROYS = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

ViewOf = Annotated[
    Identifier | None,
    Field(
        description="Only what this agent sees (its own memories and the shared ones); a key "
        "bound to an agent may name only its own."
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=128, description="A memory's id.")]
"""Named ``id`` where a tool takes one memory, as GraphQL names it."""
Rationale = Annotated[
    str | None,
    Field(max_length=models.MAX_RATIONALE_CHARS, description="Why; shown with the memory."),
]
RelationType = Annotated[models.RelationType, Field(description="The relation's type.")]
TAGS = "Every one of these tags."
MIN_CONFIDENCE = "Leave out memories less certain than this."
MIN_RELEVANCE = (
    "Leave out memories less relevant than this (0 to 1: meaning and shared words fused); "
    "nothing relevant returns nothing, with a note."
)
OCCURRED_AFTER = "Only what happened at or after this time (ISO 8601)."
OCCURRED_BEFORE = "Only what happened before this time (ISO 8601)."
AS_OF = (
    "Answer as the store stood at this past time (ISO 8601): the memories that held then, "
    "with the tiers and statuses they had."
)


def _memory_id(name: str = "id") -> Param:
    """A memory's id, passed to GraphMem as ``memory_id`` when the tool calls it ``id``."""
    return own(name, MemoryId, into="memory_id" if name == "id" else name)


TOOLS = (
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
        "replaced by its successor unless include_superseded is set.",
        READ_ONLY,
        [
            *fields(
                domain.SearchRequest,
                query="What to look for, in words.",
                mode="HYBRID: both indexes plus relations; VECTOR or FULLTEXT: one index; "
                "GRAPH: the best few hits and what relates to them.",
                limit="How many hits.",
                depth="Relations walked from each hit.",
            ),
            # Omitted, the request's own default: the relations worth walking.
            own(
                "relation_types",
                Annotated[
                    list[models.RelationType] | None,
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
            _memory_id(),
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
                    list[models.RelationType] | None,
                    Field(description="Relations to walk and return; every type when omitted."),
                ],
                None,
            ),
            own("as_of", Annotated[IsoTime | None, Field(description=AS_OF)], None),
        ],
        NeighborhoodView,
    ),
    Tool(
        "remember",
        "Store a memory. Text matching a live memory (ignoring case and punctuation), or a "
        "near match saying the same, is counted into it as another occurrence instead of "
        "stored twice. A near match that differs by a sign of contradiction (negation, "
        "antonym, number, version, date, identifier, name, unit, swapped roles) is stored as "
        "its own memory: it supersedes the old one when you restate a fact with a new value, "
        "else it is flagged for review as a possible contradiction; any other difference "
        "keeps both. Events (memory_type event) merge only as the same text at the same time "
        "and never supersede or flag. The result's outcome says which happened.",
        WRITES,
        fields(
            MemoryInput,
            content="The memory.",
            memory_type="What kind of memory; decisions, rules and risks weigh most.",
            confidence="How sure you are it is true.",
            source="auto_extracted memories start as candidates awaiting evidence; the others "
            "start active.",
            suggested_by="agent: the user asked to remember this; it is kept long-term at once.",
            self_assessment="Your own rating of its value.",
            pinned="Never archive it.",
            tags=TAGS,
            rationale="Why; shown with the memory.",
            evidence="What supports it.",
            session_id="The thread of work it belongs to.",
            agent_id="Who is writing it; a key bound to an agent writes as it only.",
            visibility="private to its agent, or shared with every agent of the project; the "
            "project's default when omitted.",
            occurred_at="When it happened (ISO 8601), for a past event or conversation turn; "
            "now when omitted.",
            valid_from="When what it records began to hold (ISO 8601); occurred_at when omitted.",
            valid_to="When it stopped holding (ISO 8601), e.g. a key rotated on a known day; "
            "open when omitted.",
        ),
        RememberResult,
        results.remembered,
        operation="remember_detailed",
        request=("item", MemoryInput),
    ),
    Tool(
        "record_feedback",
        "Rate a memory you used: 1 helped, 0 neutral, -1 wrong or misleading. It is "
        "rescored, and net positive feedback confirms a candidate.",
        WRITES,
        [
            _memory_id(),
            own("value", Annotated[Literal[-1, 0, 1], Field(description="1, 0 or -1.")]),
        ],
        MemoryView,
        operation="feedback",
    ),
    Tool(
        "pin",
        "Pin a memory: it is confirmed (a candidate becomes active) and never archived.",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        [_memory_id()],
        MemoryView,
    ),
    Tool(
        "relate",
        "Add or update a typed relation from one memory to another: CONSTRAINS (a rule that "
        "binds the other), ENABLES, RELATED_TO or SUPERSEDES.",
        WRITES,
        [
            _memory_id("from_id"),
            _memory_id("to_id"),
            own("type", RelationType),
            own("rationale", Rationale, None),
            own("weight", Annotated[float, Field(ge=0.0, le=1.0, description="How strong.")], 1.0),
        ],
        RelationView,
    ),
    Tool(
        "supersede",
        "Mark new_id as replacing old_id. The old memory is kept but no longer offered in its "
        "successor's place.",
        WRITES,
        [_memory_id("old_id"), _memory_id("new_id"), own("rationale", Rationale, None)],
        RelationView,
    ),
    Tool(
        "restore",
        "Bring an archived memory back to the tier it left (a hit marked archived); it counts "
        "as just used.",
        WRITES,
        [_memory_id()],
        MemoryView,
    ),
    Tool(
        "unrelate",
        "Remove one wrong relation, saying why; it is logged with who removed it (agent_id, "
        "else the API key). Removing a SUPERSEDES relation restores the older memory, unless "
        "another still supersedes it. A relation that does not exist is a NOT_FOUND error "
        "and nothing is written.",
        DESTROYS,
        [
            _memory_id("from_id"),
            _memory_id("to_id"),
            own("type", RelationType),
            own(
                "reason",
                Annotated[
                    str, Field(min_length=1, max_length=500, description="Why it is removed.")
                ],
            ),
            own(
                "agent_id",
                Annotated[Identifier | None, Field(description="Who removes it.")],
                None,
                into="removed_by",
            ),
        ],
        RelationView,
    ),
    Tool(
        "forget",
        "Delete a memory and its relations for good. Prefer supersede for outdated memories: "
        "stale ones are archived on their own.",
        DESTROYS,
        [_memory_id()],
        ForgetResult,
        results.forgotten,
    ),
    Tool(
        "record_failure",
        "Report a failure of a step you took: what you attempted, the tool or command, the "
        "error, and what fixed it if you know. The same failure reported again is counted on "
        "its capsule; its lesson goes to the review queue and becomes active on recurrence or "
        "once a fix is recorded. The capsule and its lesson are private or shared like a "
        "memory you remember.",
        WRITES,
        [
            *fields(
                capsules.FailureReport,
                error="The error text as the tool gave it.",
                attempted="What you tried to do.",
                tool="The tool that failed.",
                command="The command run.",
                files="Files the step worked on.",
            ),
            # Checked as ids by the report; an agent sees them as the memory ids it holds.
            own(
                "context_memory_ids",
                Annotated[
                    Sequence[MemoryId],
                    Field(
                        max_length=capsules.MAX_CONTEXT_MEMORIES,
                        description="Ids of the memories you had in context when it failed.",
                    ),
                ],
                (),
                at=(),
            ),
            *fields(
                capsules.FailureReport,
                fix="What fixed it, if known.",
                session_id="The thread of work it happened in.",
                agent_id="Who is reporting.",
                visibility="private: only its agent reads the capsule and its lesson; shared: "
                "every agent of the project. The project's default when omitted.",
                tags=TAGS,
            ),
        ],
        FailureResult,
        results.failure_recorded,
        request=("report", capsules.FailureReport),
    ),
    Tool(
        "review_candidates",
        "Candidates awaiting review, with the evidence for each (occurrences, feedback, age, "
        "near duplicates), a page at a time.",
        READ_ONLY,
        [
            *fields(
                ReviewFilter,
                session_id="Only this session's.",
                memory_type="Only this type.",
                tags=TAGS,
            ),
            # No upper bound shown: the filter's is the store's integer range.
            own(
                "min_occurrences",
                Annotated[int, Field(ge=1, description="Written at least this often.")],
                1,
                at=(),
            ),
            *fields(ReviewFilter, older_than_seconds="Written at least this long ago."),
            own(
                "order",
                Annotated[
                    Literal["oldest", "evidence"],
                    Field(description="oldest first, or most evidence first."),
                ],
                "oldest",
            ),
            own(
                "first", Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, description="Page size.")], 20
            ),
            own(
                "after",
                Annotated[
                    str | None,
                    Field(max_length=128, description="next_cursor of the previous page."),
                ],
                None,
            ),
        ],
        ReviewView,
        lambda page, _: results.review_view(page),
        operation="review_queue",
        request=("filter", ReviewFilter),
    ),
    Tool(
        "share",
        "Let every agent of the project see one of your memories (logged).",
        WRITES,
        [_memory_id()],
        MemoryView,
    ),
    Tool(
        "unshare",
        "Make one of your memories private to you again (logged).",
        WRITES,
        [_memory_id()],
        MemoryView,
    ),
    Tool(
        "copy_memory",
        "Copy a memory into another project you work in; the copy names where it came from "
        "and the original stays as it is (logged).",
        WRITES,
        [
            _memory_id(),
            own(
                "to_project_id",
                Annotated[Identifier, Field(description="The project to copy it into.")],
            ),
        ],
        MemoryView,
    ),
    Tool(
        "sharing_events",
        "Who shared, unshared or copied which memory, newest first.",
        READ_ONLY,
        [
            own(
                "memory_id",
                Annotated[
                    str | None, Field(max_length=128, description="Only this memory's events.")
                ],
                None,
            ),
            own("limit", Annotated[int, Field(ge=1, le=200, description="How many events.")], 50),
        ],
        SharingEventsView,
        results.sharing_events_view,
    ),
    Tool(
        "projects",
        "The projects you may read that hold memories, sessions or settings, sorted: the "
        "values project_id takes. A project named that is not among them holds nothing (a "
        "typo, or one not written to yet).",
        READ_ONLY,
        [],
        ProjectsView,
        results.projects_readable,
        operation="project_ids",
    ),
)


def create_server(gm: GraphMem, *, principal: Principal = OPEN) -> GraphMemMCP:
    """The MCP server over ``gm``. ``principal`` is who stdio clients act as;
    HTTP requests bring their own (see ``graphmem.mcp.http``)."""
    server = GraphMemMCP(
        "graphmem",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        warn_on_duplicate_tools=False,
    )
    server.stdio_principal = principal
    for tool in TOOLS:
        server.add_tool(
            served(tool, gm, principal),
            name=tool.name,
            description=tool.description,
            annotations=tool.annotations,
        )
    return server
