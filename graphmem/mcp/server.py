"""The MCP tools: GraphMem's agent-facing operations, one tool each.

Each tool resolves its project through the caller's principal, builds the
request object of its operation from its arguments (the model the GraphQL
resolver and the CLI build too) and hands it to GraphMem as is; every rule
stays in the models and GraphMem. The parameter limits
are the models' own constants, so the schema a client sees is what is
enforced. Deliberate errors come back as tool error results (``is_error``)
whose text and structured content name the code, the field and the limit,
which an agent can correct; anything else is reported as a crash without
detail.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from graphmem import __version__, capsules, models
from graphmem import retrieval as domain
from graphmem.agents import acting_as
from graphmem.api import GraphMem
from graphmem.auth import OPEN, Principal, Role
from graphmem.config import MAX_ALIASES
from graphmem.errors import (
    ForbiddenError,
    GraphMemError,
    StoreUnavailableError,
    UnauthenticatedError,
)
from graphmem.gate import PRINCIPAL
from graphmem.mcp.results import (
    CapsuleView,
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
    SharingEventView,
    context_view,
    review_view,
    search_view,
)
from graphmem.models import (
    MAX_CONTENT_CHARS,
    MAX_EVIDENCE_CHARS,
    MAX_EVIDENCE_ITEMS,
    MAX_PAGE_SIZE,
    MAX_RATIONALE_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    Identifier,
)
from graphmem.retrieval import context as ctx_limits
from graphmem.retrieval import search as search_limits
from graphmem.retrieval.fusion import DEFAULT_MIN_RELEVANCE

STORE_UNAVAILABLE_MESSAGE = "The graph database is unavailable; try again shortly"
_ARGUMENT_NAMES = {
    "projectId": "project_id",
    "agentId": "agent_id",
    "toProjectId": "to_project_id",
}
"""GraphMem's names for what the tools call otherwise."""

log = logging.getLogger(__name__)

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

ProjectId = Annotated[
    Identifier | None,
    Field(description="The project (tenant) to act in; the server's default when omitted."),
]
ViewOf = Annotated[
    Identifier | None,
    Field(
        description="Only what this agent sees (its own memories and the shared ones); a key "
        "bound to an agent may name only its own."
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=128, description="A memory's id.")]
"""Named ``id`` where a tool takes one memory, as GraphQL names it."""
OccurredAfter = Annotated[
    str | None,
    Field(max_length=64, description="Only what happened at or after this time (ISO 8601)."),
]
OccurredBefore = Annotated[
    str | None,
    Field(max_length=64, description="Only what happened before this time (ISO 8601)."),
]
AsOf = Annotated[
    str | None,
    Field(
        max_length=64,
        description="Answer as the store stood at this past time (ISO 8601): the memories "
        "that held then, with the tiers and statuses they had.",
    ),
]
MinRelevance = Annotated[
    float,
    Field(
        ge=0.0,
        le=1.0,
        description="Leave out memories less relevant than this (0 to 1: meaning and shared "
        "words fused); nothing relevant returns nothing, with a note.",
    ),
]
Tags = Annotated[
    Sequence[Annotated[str, Field(min_length=1, max_length=MAX_TAG_CHARS)]],
    Field(max_length=MAX_TAGS, description="Every one of these tags."),
]
Rationale = Annotated[
    str | None,
    Field(max_length=MAX_RATIONALE_CHARS, description="Why; shown with the memory."),
]

MAX_IDS = MAX_ALIASES
"""Memories read in one call: as many as one GraphQL document asks for by id."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class GraphMemMCP(MCPServer[Any]):
    """An MCPServer whose tool errors carry GraphMem's codes and fields, and whose
    tools act as the caller's agent when its key is bound to one."""

    stdio_principal: Principal = OPEN
    """Who stdio clients act as; HTTP requests bring their own."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            principal = self._caller(context)
            # The tool runs in a copy of this context (a worker thread's), agent included.
            with acting_as(principal.agent_id):
                return await super().call_tool(name, arguments, context)
        except UnauthenticatedError as exc:
            return _error_result(exc)
        except ToolError as exc:
            error = _deliberate(exc)
            if error is None:
                raise
            return _error_result(error)

    def _caller(self, context: Context[Any, Any] | None) -> Principal:
        """Who calls: the HTTP request's principal, or the process's own (stdio, or
        a call made in the process with no request)."""
        if context is None:
            return self.stdio_principal
        try:
            context.request_context  # noqa: B018 - raises outside a request
        except ValueError:
            return self.stdio_principal
        return _request_principal(context, self.stdio_principal)


def _deliberate(exc: ToolError) -> GraphMemError | None:
    """The GraphMem error behind a tool failure, if it was one a caller can fix.

    The SDK raises ``ToolError`` from a ``ValidationError`` when the arguments
    fail the tool's schema, and ``UnexpectedToolError`` around whatever the
    tool itself raised.
    """
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
        return models.invalid_input(cause, locate=_argument_path)
    if isinstance(cause, GraphMemError):
        return cause
    return None


def _argument_path(loc: tuple[Any, ...]) -> str:
    """``("tags", 3)`` -> ``tags[3]``: the path as the caller wrote the argument."""
    path = str(loc[0]) if loc else ""
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _error_result(error: GraphMemError) -> CallToolResult:
    field, message = error.field, error.message
    if field in _ARGUMENT_NAMES:
        renamed = _ARGUMENT_NAMES[field]
        if message.startswith(f"{field}:"):
            message = renamed + message[len(field) :]
        field = renamed
    if isinstance(error, StoreUnavailableError):
        # The detail may name hosts or paths; the operator's log keeps it.
        log.warning("graph database unavailable: %s", error.message)
        message = STORE_UNAVAILABLE_MESSAGE
    return CallToolResult(
        content=[TextContent(type="text", text=f"error [{error.code}]: {message}")],
        structured_content={"error": {"code": error.code, "field": field, "message": message}},
        is_error=True,
    )


def _request_principal(ctx: Context[Any, Any], stdio: Principal) -> Principal:
    """The principal the HTTP gate found for this request, or the process's own
    over stdio (where there is no request)."""
    request = ctx.request_context.request
    if request is None:
        return stdio
    principal = getattr(request.state, PRINCIPAL, None)
    if not isinstance(principal, Principal):
        raise UnauthenticatedError("this request carries no credentials")
    return principal


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

    def project(ctx: Context[Any, Any], project_id: str | None, role: Role) -> str:
        return _request_principal(ctx, principal).project_for(project_id, gm.default_project, role)

    @server.tool(
        description="What the memory store knows that bears on what you are about to do, "
        "best first: a text block to put in your prompt plus each memory with its score. "
        "Only active, current memories are returned (archived ones too, marked, with "
        "include_archived); each live one returned counts as retrieved (not as used: "
        "record_feedback or pin says a memory helped).",
        annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False),
    )
    def knowledge_context(
        ctx: Context[Any, Any],
        context_hint: Annotated[
            str,
            Field(
                min_length=ctx_limits.HINT_MIN_CHARS,
                max_length=ctx_limits.HINT_MAX_CHARS,
                description="What you are about to do or discuss; memories are matched against it.",
            ),
        ],
        include_types: Annotated[
            list[models.MemoryType] | None,
            Field(description="Only memories of these types; all types when omitted."),
        ] = None,
        min_confidence: Annotated[
            float, Field(ge=0.0, le=1.0, description="Leave out memories less certain than this.")
        ] = ctx_limits.DEFAULT_MIN_CONFIDENCE,
        max_results: Annotated[
            int, Field(ge=1, le=ctx_limits.MAX_RESULTS, description="How many memories.")
        ] = ctx_limits.DEFAULT_MAX_RESULTS,
        recency_weight: Annotated[
            float,
            Field(
                ge=0.0,
                le=1.0,
                description="Weight of recency; the other factors rebalance to sum to 1.",
            ),
        ] = ctx_limits.DEFAULT_RECENCY_WEIGHT,
        include_superseded: Annotated[
            bool, Field(description="Also return memories a newer one supersedes.")
        ] = False,
        include_archived: Annotated[
            bool,
            Field(
                description="Also archived memories, each marked archived (restore one to "
                "use it again)."
            ),
        ] = False,
        session_id: Annotated[
            Identifier | None, Field(description="Only this session's memories.")
        ] = None,
        record_access: Annotated[
            bool | None,
            Field(
                description="Count a retrieval on each returned memory; the server's setting when "
                "omitted."
            ),
        ] = None,
        min_relevance: MinRelevance = DEFAULT_MIN_RELEVANCE,
        occurred_after: OccurredAfter = None,
        occurred_before: OccurredBefore = None,
        as_of: AsOf = None,
        agent_id: ViewOf = None,
        project_id: ProjectId = None,
    ) -> Annotated[CallToolResult, ContextView]:
        scope = project(ctx, project_id, Role.READ)  # access is checked before the arguments
        request = ctx_limits.parse_request(
            {
                "context_hint": context_hint,
                "include_types": include_types,
                "min_confidence": min_confidence,
                "max_results": max_results,
                "recency_weight": recency_weight,
                "include_superseded": include_superseded,
                "include_archived": include_archived,
                "session_id": session_id,
                "min_relevance": min_relevance,
                "occurred_after": occurred_after,
                "occurred_before": occurred_before,
                "as_of": as_of,
            }
        )
        result = gm.knowledge_context(
            request, record_access=record_access, project_id=scope, agent_id=agent_id
        )
        view = context_view(result)
        # A client that hands the model only text content gives it the block itself.
        return CallToolResult(
            content=[TextContent(type="text", text=view.context)],
            structured_content=view.model_dump(mode="json"),
        )

    @server.tool(
        description="Hybrid search over meaning, words and relations; every hit says why it "
        "scored what it did, which index found it and which relations brought it in. "
        "A superseded hit is replaced by its successor unless include_superseded is set.",
        annotations=READ_ONLY,
    )
    def search(
        ctx: Context[Any, Any],
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=search_limits.MAX_QUERY_CHARS,
                description="What to look for, in words.",
            ),
        ],
        mode: Annotated[
            domain.SearchMode,
            Field(
                description="HYBRID: both indexes plus relations; VECTOR or FULLTEXT: one "
                "index; GRAPH: the best few hits and what relates to them."
            ),
        ] = domain.SearchMode.HYBRID,
        limit: Annotated[
            int, Field(ge=1, le=search_limits.MAX_LIMIT, description="How many hits.")
        ] = 10,
        depth: Annotated[
            int,
            Field(ge=0, le=search_limits.MAX_DEPTH, description="Relations walked from each hit."),
        ] = 1,
        relation_types: Annotated[
            list[models.RelationType] | None,
            Field(
                description="Relations to walk (not SUPERSEDES); ENABLES, CONSTRAINS and "
                "RELATED_TO when omitted."
            ),
        ] = None,
        types: Annotated[
            Sequence[models.MemoryType], Field(description="Only memories of these types.")
        ] = (),
        tiers: Annotated[Sequence[models.Tier], Field(description="Only these tiers.")] = (),
        statuses: Annotated[
            Sequence[models.Status], Field(description="Only these statuses.")
        ] = (),
        tags: Tags = (),
        session_id: Annotated[Identifier | None, Field(description="Only this session's.")] = None,
        min_confidence: Annotated[
            float, Field(ge=0.0, le=1.0, description="Leave out memories less certain than this.")
        ] = 0.0,
        include_candidates: Annotated[
            bool, Field(description="Also unconfirmed candidates.")
        ] = True,
        include_archived: Annotated[
            bool, Field(description="Also archived memories; each such hit is marked archived.")
        ] = False,
        include_superseded: Annotated[
            bool, Field(description="Keep superseded hits instead of their successors.")
        ] = False,
        min_relevance: MinRelevance = DEFAULT_MIN_RELEVANCE,
        occurred_after: OccurredAfter = None,
        occurred_before: OccurredBefore = None,
        as_of: AsOf = None,
        agent_id: ViewOf = None,
        project_id: ProjectId = None,
    ) -> SearchView:
        scope = project(ctx, project_id, Role.READ)  # access is checked before the arguments
        request = models.parse(
            domain.SearchRequest,
            {
                "query": query,
                "mode": mode,
                "limit": limit,
                "depth": depth,
                "relation_types": relation_types,
                "min_relevance": min_relevance,
                "as_of": as_of,
                "filters": {
                    "types": types,
                    "tiers": tiers,
                    "statuses": statuses,
                    "tags": tags,
                    "session_id": session_id,
                    "min_confidence": min_confidence,
                    "include_candidates": include_candidates,
                    "include_archived": include_archived,
                    "include_superseded": include_superseded,
                    "occurred_after": occurred_after,
                    "occurred_before": occurred_before,
                },
            },
        )
        result = gm.search(request, project_id=scope, agent_id=agent_id)
        return search_view(result)

    @server.tool(
        description="Read memories by id, as they are now or, with as_of, as they stood "
        "then. An id the project has no memory for (or none you may see, or none written "
        "by as_of) is left out of the answer rather than an error. Reading counts no use "
        "and no retrieval.",
        annotations=READ_ONLY,
    )
    def get_memories(
        ctx: Context[Any, Any],
        ids: Annotated[
            Sequence[MemoryId],
            Field(min_length=1, max_length=MAX_IDS, description="The memories' ids."),
        ],
        as_of: AsOf = None,
        project_id: ProjectId = None,
    ) -> MemoriesView:
        scope = project(ctx, project_id, Role.READ)
        found = gm.get_many(list(dict.fromkeys(ids)), project_id=scope, as_of=as_of)
        return MemoriesView(memories=[MemoryView.of(m) for m in found if m is not None])

    @server.tool(
        description="A memory and every memory within depth relations of it, with the "
        "typed relations between them: what constrains, enables, relates to or supersedes "
        "it. With as_of, the memories and relations that existed then, as they stood (no "
        "nodes when the memory was not yet written). An id the project has no memory for "
        "is a NOT_FOUND error.",
        annotations=READ_ONLY,
    )
    def neighborhood(
        ctx: Context[Any, Any],
        id: MemoryId,
        depth: Annotated[
            int,
            Field(
                ge=1,
                le=search_limits.MAX_DEPTH,
                description="Relations walked from the memory.",
            ),
        ] = 1,
        relation_types: Annotated[
            list[models.RelationType] | None,
            Field(description="Relations to walk and return; every type when omitted."),
        ] = None,
        as_of: AsOf = None,
        project_id: ProjectId = None,
    ) -> NeighborhoodView:
        hood = gm.neighborhood(
            id,
            depth=depth,
            relation_types=relation_types,
            project_id=project(ctx, project_id, Role.READ),
            as_of=as_of,
        )
        return NeighborhoodView.of(hood)

    @server.tool(
        description="Store a memory. Text matching a live memory (ignoring case and "
        "punctuation), or a near match saying the same, is counted into it as another "
        "occurrence instead of stored twice. A near match that differs by a sign of "
        "contradiction (negation, antonym, number, version, date, identifier, name, unit, "
        "swapped roles) is stored as its own memory: it supersedes the old one when you "
        "restate a fact with a new value, else it is flagged for review as a possible "
        "contradiction; any other difference keeps both. Events (memory_type event) merge "
        "only as the same text at the same time and never supersede or flag. The result's "
        "outcome says which happened.",
        annotations=WRITES,
    )
    def remember(
        ctx: Context[Any, Any],
        content: Annotated[
            str, Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="The memory.")
        ],
        memory_type: Annotated[
            models.MemoryType | None,
            Field(description="What kind of memory; decisions, rules and risks weigh most."),
        ] = None,
        confidence: Annotated[
            float, Field(ge=0.0, le=1.0, description="How sure you are it is true.")
        ] = 0.7,
        source: Annotated[
            models.Source,
            Field(
                description="auto_extracted memories start as candidates awaiting evidence; "
                "the others start active."
            ),
        ] = models.Source.AGENT,
        suggested_by: Annotated[
            models.SuggestedBy,
            Field(
                description="agent: the user asked to remember this; it is kept long-term at once."
            ),
        ] = models.SuggestedBy.IMPLICIT,
        self_assessment: Annotated[
            models.SelfAssessment | None, Field(description="Your own rating of its value.")
        ] = None,
        pinned: Annotated[bool, Field(description="Never archive it.")] = False,
        tags: Tags = (),
        rationale: Rationale = None,
        evidence: Annotated[
            Sequence[Annotated[str, Field(max_length=MAX_EVIDENCE_CHARS)]],
            Field(max_length=MAX_EVIDENCE_ITEMS, description="What supports it."),
        ] = (),
        session_id: Annotated[
            Identifier | None, Field(description="The thread of work it belongs to.")
        ] = None,
        agent_id: Annotated[
            Identifier | None,
            Field(description="Who is writing it; a key bound to an agent writes as it only."),
        ] = None,
        visibility: Annotated[
            models.Visibility | None,
            Field(
                description="private to its agent, or shared with every agent of the project; "
                "the project's default when omitted."
            ),
        ] = None,
        occurred_at: Annotated[
            str | None,
            Field(
                max_length=64,
                description="When it happened (ISO 8601), for a past event or conversation "
                "turn; now when omitted.",
            ),
        ] = None,
        valid_from: Annotated[
            str | None,
            Field(
                max_length=64,
                description="When what it records began to hold (ISO 8601); occurred_at when "
                "omitted.",
            ),
        ] = None,
        valid_to: Annotated[
            str | None,
            Field(
                max_length=64,
                description="When it stopped holding (ISO 8601), e.g. a key rotated on a "
                "known day; open when omitted.",
            ),
        ] = None,
        project_id: ProjectId = None,
    ) -> RememberResult:
        scope = project(ctx, project_id, Role.WRITE)  # access is checked before the arguments
        item = models.parse(
            models.MemoryInput,
            {
                "content": content,
                "memory_type": memory_type,
                "confidence": confidence,
                "source": source,
                "suggested_by": suggested_by,
                "self_assessment": self_assessment,
                "pinned": pinned,
                "tags": tags,
                "rationale": rationale,
                "evidence": evidence,
                "session_id": session_id,
                "agent_id": agent_id,
                "visibility": visibility,
                "occurred_at": occurred_at,
                "valid_from": valid_from,
                "valid_to": valid_to,
            },
        )
        memory, outcome = gm.remember_detailed(item, project_id=scope)
        return RememberResult(
            memory=MemoryView.of(memory),
            created=outcome.created,
            match=outcome.match,
            outcome=outcome.result.value,
            related_id=outcome.related_id,
            reason=outcome.reason,
        )

    @server.tool(
        description="Rate a memory you used: 1 helped, 0 neutral, -1 wrong or misleading. "
        "It is rescored, and net positive feedback confirms a candidate.",
        annotations=WRITES,
    )
    def record_feedback(
        ctx: Context[Any, Any],
        id: MemoryId,
        value: Annotated[Literal[-1, 0, 1], Field(description="1, 0 or -1.")],
        project_id: ProjectId = None,
    ) -> MemoryView:
        memory = gm.feedback(id, value, project_id=project(ctx, project_id, Role.WRITE))
        return MemoryView.of(memory)

    @server.tool(
        description="Pin a memory: it is confirmed (a candidate becomes active) and never "
        "archived.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def pin(ctx: Context[Any, Any], id: MemoryId, project_id: ProjectId = None) -> MemoryView:
        return MemoryView.of(gm.pin(id, project_id=project(ctx, project_id, Role.WRITE)))

    @server.tool(
        description="Add or update a typed relation from one memory to another: "
        "CONSTRAINS (a rule that binds the other), ENABLES, RELATED_TO or SUPERSEDES.",
        annotations=WRITES,
    )
    def relate(
        ctx: Context[Any, Any],
        from_id: MemoryId,
        to_id: MemoryId,
        type: Annotated[models.RelationType, Field(description="The relation's type.")],
        rationale: Rationale = None,
        weight: Annotated[float, Field(ge=0.0, le=1.0, description="How strong.")] = 1.0,
        project_id: ProjectId = None,
    ) -> RelationView:
        relation = gm.relate(
            from_id,
            to_id,
            type,
            rationale=rationale,
            weight=weight,
            project_id=project(ctx, project_id, Role.WRITE),
        )
        return RelationView.of(relation)

    @server.tool(
        description="Mark new_id as replacing old_id. The old memory is kept but no longer "
        "offered in its successor's place.",
        annotations=WRITES,
    )
    def supersede(
        ctx: Context[Any, Any],
        old_id: MemoryId,
        new_id: MemoryId,
        rationale: Rationale = None,
        project_id: ProjectId = None,
    ) -> RelationView:
        relation = gm.supersede(
            old_id, new_id, rationale=rationale, project_id=project(ctx, project_id, Role.WRITE)
        )
        return RelationView.of(relation)

    @server.tool(
        description="Bring an archived memory back to the tier it left (a hit marked "
        "archived); it counts as just used.",
        annotations=WRITES,
    )
    def restore(ctx: Context[Any, Any], id: MemoryId, project_id: ProjectId = None) -> MemoryView:
        return MemoryView.of(gm.restore(id, project_id=project(ctx, project_id, Role.WRITE)))

    @server.tool(
        description="Remove one wrong relation, saying why; it is logged with who removed "
        "it (agent_id, else the API key). Removing a SUPERSEDES relation restores the older "
        "memory, unless another still supersedes it. A relation that does not exist is a "
        "NOT_FOUND error and nothing is written.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, open_world_hint=False
        ),
    )
    def unrelate(
        ctx: Context[Any, Any],
        from_id: MemoryId,
        to_id: MemoryId,
        type: Annotated[models.RelationType, Field(description="The relation's type.")],
        reason: Annotated[
            str, Field(min_length=1, max_length=500, description="Why it is removed.")
        ],
        agent_id: Annotated[Identifier | None, Field(description="Who removes it.")] = None,
        project_id: ProjectId = None,
    ) -> RelationView:
        scope = project(ctx, project_id, Role.WRITE)
        key = _request_principal(ctx, principal).key_id
        relation = gm.unrelate(
            from_id,
            to_id,
            type,
            reason=reason,
            removed_by=agent_id or (f"key:{key}" if key else "mcp"),
            project_id=scope,
        )
        return RelationView.of(relation)

    @server.tool(
        description="Delete a memory and its relations for good. Prefer supersede for "
        "outdated memories: stale ones are archived on their own.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, open_world_hint=False
        ),
    )
    def forget(ctx: Context[Any, Any], id: MemoryId, project_id: ProjectId = None) -> ForgetResult:
        gm.forget(id, project_id=project(ctx, project_id, Role.WRITE))
        return ForgetResult(id=id, forgotten=True)

    @server.tool(
        description="Report a failure of a step you took: what you attempted, the tool or "
        "command, the error, and what fixed it if you know. The same failure reported "
        "again is counted on its capsule; its lesson goes to the review queue and becomes "
        "active on recurrence or once a fix is recorded. The capsule and its lesson are "
        "private or shared like a memory you remember.",
        annotations=WRITES,
    )
    def record_failure(
        ctx: Context[Any, Any],
        error: Annotated[
            str,
            Field(
                min_length=1,
                max_length=capsules.MAX_ERROR_CHARS,
                description="The error text as the tool gave it.",
            ),
        ],
        attempted: Annotated[
            str | None,
            Field(max_length=capsules.MAX_ATTEMPTED_CHARS, description="What you tried to do."),
        ] = None,
        tool: Annotated[
            str | None,
            Field(max_length=capsules.MAX_TOOL_CHARS, description="The tool that failed."),
        ] = None,
        command: Annotated[
            str | None,
            Field(max_length=capsules.MAX_COMMAND_CHARS, description="The command run."),
        ] = None,
        files: Annotated[
            Sequence[Annotated[str, Field(min_length=1, max_length=capsules.MAX_FILE_CHARS)]],
            Field(max_length=capsules.MAX_FILES, description="Files the step worked on."),
        ] = (),
        context_memory_ids: Annotated[
            Sequence[MemoryId],
            Field(
                max_length=capsules.MAX_CONTEXT_MEMORIES,
                description="Ids of the memories you had in context when it failed.",
            ),
        ] = (),
        fix: Annotated[
            str | None,
            Field(max_length=capsules.MAX_FIX_CHARS, description="What fixed it, if known."),
        ] = None,
        session_id: Annotated[
            Identifier | None, Field(description="The thread of work it happened in.")
        ] = None,
        agent_id: Annotated[Identifier | None, Field(description="Who is reporting.")] = None,
        visibility: Annotated[
            models.Visibility | None,
            Field(
                description="private: only its agent reads the capsule and its lesson; "
                "shared: every agent of the project. The project's default when omitted."
            ),
        ] = None,
        tags: Tags = (),
        project_id: ProjectId = None,
    ) -> FailureResult:
        scope = project(ctx, project_id, Role.WRITE)  # access is checked before the arguments
        report = models.parse(
            capsules.FailureReport,
            {
                "error": error,
                "attempted": attempted,
                "tool": tool,
                "command": command,
                "files": files,
                "context_memory_ids": context_memory_ids,
                "fix": fix,
                "session_id": session_id,
                "agent_id": agent_id,
                "visibility": visibility,
                "tags": tags,
            },
        )
        outcome = gm.record_failure(report, project_id=scope)
        lesson = gm.get(outcome.lesson_id, project_id=scope) if outcome.lesson_id else None
        return FailureResult(
            capsule=CapsuleView.of(outcome.capsule),
            created=outcome.created,
            lesson_status=outcome.lesson_status,
            lesson=MemoryView.of(lesson) if lesson else None,
        )

    @server.tool(
        description="Candidates awaiting review, with the evidence for each (occurrences, "
        "feedback, age, near duplicates), a page at a time.",
        annotations=READ_ONLY,
    )
    def review_candidates(
        ctx: Context[Any, Any],
        session_id: Annotated[Identifier | None, Field(description="Only this session's.")] = None,
        memory_type: Annotated[
            models.MemoryType | None, Field(description="Only this type.")
        ] = None,
        tags: Tags = (),
        min_occurrences: Annotated[
            int, Field(ge=1, description="Written at least this often.")
        ] = 1,
        older_than_seconds: Annotated[
            float | None, Field(ge=0, description="Written at least this long ago.")
        ] = None,
        order: Annotated[
            Literal["oldest", "evidence"],
            Field(description="oldest first, or most evidence first."),
        ] = "oldest",
        first: Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, description="Page size.")] = 20,
        after: Annotated[
            str | None, Field(max_length=128, description="next_cursor of the previous page.")
        ] = None,
        project_id: ProjectId = None,
    ) -> ReviewView:
        page = gm.review_queue(
            {
                "session_id": session_id,
                "memory_type": memory_type,
                "tags": tags,
                "min_occurrences": min_occurrences,
                "older_than_seconds": older_than_seconds,
            },
            order=order,
            first=first,
            after=after,
            project_id=project(ctx, project_id, Role.READ),
        )
        return review_view(page)

    @server.tool(
        description="Let every agent of the project see one of your memories (logged).",
        annotations=WRITES,
    )
    def share(ctx: Context[Any, Any], id: MemoryId, project_id: ProjectId = None) -> MemoryView:
        return MemoryView.of(gm.share(id, project_id=project(ctx, project_id, Role.WRITE)))

    @server.tool(
        description="Make one of your memories private to you again (logged).",
        annotations=WRITES,
    )
    def unshare(ctx: Context[Any, Any], id: MemoryId, project_id: ProjectId = None) -> MemoryView:
        return MemoryView.of(gm.unshare(id, project_id=project(ctx, project_id, Role.WRITE)))

    @server.tool(
        description="Copy a memory into another project you work in; the copy names where it "
        "came from and the original stays as it is (logged).",
        annotations=WRITES,
    )
    def copy_memory(
        ctx: Context[Any, Any],
        id: MemoryId,
        to_project_id: Annotated[Identifier, Field(description="The project to copy it into.")],
        project_id: ProjectId = None,
    ) -> MemoryView:
        scope = project(ctx, project_id, Role.WRITE)
        try:
            project(ctx, to_project_id, Role.WRITE)
        except GraphMemError:
            raise ForbiddenError(
                "to_project_id: this API key may not write in the project named",
                field="to_project_id",
            ) from None
        return MemoryView.of(gm.copy_memory(id, to_project_id, project_id=scope))

    @server.tool(
        description="Who shared, unshared or copied which memory, newest first.",
        annotations=READ_ONLY,
    )
    def sharing_events(
        ctx: Context[Any, Any],
        memory_id: Annotated[
            str | None, Field(max_length=128, description="Only this memory's events.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="How many events.")] = 50,
        project_id: ProjectId = None,
    ) -> SharingEventsView:
        events = gm.sharing_events(
            memory_id=memory_id, limit=limit, project_id=project(ctx, project_id, Role.READ)
        )
        return SharingEventsView(events=[SharingEventView.of(event) for event in events])

    @server.tool(
        description="The projects you may read that hold memories, sessions or settings, "
        "sorted: the values project_id takes. A project named that is not among them holds "
        "nothing (a typo, or one not written to yet).",
        annotations=READ_ONLY,
    )
    def projects(ctx: Context[Any, Any]) -> ProjectsView:
        readable = _request_principal(ctx, principal).projects
        known = gm.project_ids()
        return ProjectsView(projects=[p for p in known if readable is None or p in readable])

    return server
