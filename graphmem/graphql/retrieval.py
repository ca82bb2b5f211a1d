"""Retrieval: knowledgeContext, hybrid search and neighbourhoods for graph views.

Every result explains itself: the parts of each score, the retrievers that
found a memory and at what rank, the relations that brought it in and what it
replaces. knowledgeContext counts a retrieval on each memory it returns (unless
``recordAccess: false``), so it is a query with a side effect: the request's
cached reads are dropped after it, as after a mutation.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated, Any

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.scalars import JSON

from graphmem.domain import checks, kinds
from graphmem.domain import retrieval as domain
from graphmem.domain.retrieval import prompt
from graphmem.domain.retrieval.context import parse_request
from graphmem.domain.scoring import ScoreComponent as DomainComponent
from graphmem.graphql.errors import parse_input
from graphmem.graphql.failures import FailureCapsule
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info, domain_default
from graphmem.graphql.types.memory import Memory
from graphmem.graphql.types.relations import Relation
from graphmem.graphql.types.requests import arguments_of
from graphmem.graphql.types.scores import ScoreComponent

strawberry.enum(
    domain.SearchMode,
    description="Which retrievers run: HYBRID both plus traversal (reached memories take at "
    "most a share of the results), VECTOR or FULLTEXT one, GRAPH both plus at least one "
    "relation walked from the best few hits, with no cap on what it brings in. A reached "
    "memory ranks by the relevance it inherits from its hit, so it follows more relevant "
    "direct hits.",
)
strawberry.enum(
    domain.Retriever,
    description="What found or scored a candidate: the vector index, the full-text index, "
    "FEEDBACK (a short query's candidates scored again with the words of its best hits), "
    'or TIME (the memories of the time a question asks for alone: "What happened on '
    'March 4, 2025?").',
)

AFTER_SESSION = {"record_access": "session_id", "project_id": "session_id"}
"""Where knowledgeContext's own arguments stand among its request's."""


def _components(components: list[DomainComponent]) -> list[ScoreComponent]:
    return [
        ScoreComponent(name=c.name, value=c.value, weight=c.weight, contribution=c.contribution)
        for c in components
    ]


@strawberry.type(description="One retriever's opinion of a memory.")
class RetrieverHit:
    retriever: domain.Retriever
    rank: int = strawberry.field(description="1-based rank among that retriever's results.")
    score: float = strawberry.field(
        description="The retriever's own score: cosine similarity for vectors, "
        "BM25 over the query's total IDF for full text and (expanded query) feedback."
    )

    @classmethod
    def of(cls, hit: domain.RetrieverHit) -> RetrieverHit:
        return cls(retriever=hit.retriever, rank=hit.rank, score=hit.score)


@strawberry.type(description="One relation walked, as stored: fromId -[type]-> toId.")
class PathStep:
    type: kinds.RelationType
    from_id: strawberry.ID
    to_id: strawberry.ID


@strawberry.type(description="How traversal reached a memory from a retrieved one.")
class GraphPath:
    seed_id: strawberry.ID = strawberry.field(
        description="The memory a retriever found, where the walk started."
    )
    steps: list[PathStep] = strawberry.field(
        description="Relations in walking order; the last one touches the explained memory."
    )
    factor: float = strawberry.field(
        description="The share of the seed's relevance this memory inherits along the path."
    )

    @classmethod
    def of(cls, path: domain.GraphPath) -> GraphPath:
        return cls(
            seed_id=strawberry.ID(path.seed_id),
            steps=[
                PathStep(
                    type=s.type, from_id=strawberry.ID(s.from_id), to_id=strawberry.ID(s.to_id)
                )
                for s in path.steps
            ],
            factor=path.factor,
        )


@strawberry.type(description="Why a memory is a search hit.")
class Explanation:
    components: list[ScoreComponent] = strawberry.field(
        description="Every part of the score; their contributions sum to it."
    )
    retrievers: list[RetrieverHit] = strawberry.field(
        description="Which retrievers found the memory; empty when only traversal reached it."
    )
    path: GraphPath | None = strawberry.field(
        description="The relations that brought the memory in, when traversal did."
    )
    replaces: list[strawberry.ID] = strawberry.field(
        description="Superseded memories that were found and that this one stands in for, "
        "oldest first."
    )
    notes: list[str]

    @classmethod
    def of(cls, explanation: domain.Explanation) -> Explanation:
        return cls(
            components=_components(explanation.components),
            retrievers=[RetrieverHit.of(h) for h in explanation.retrievers],
            path=GraphPath.of(explanation.path) if explanation.path else None,
            replaces=[strawberry.ID(i) for i in explanation.replaces],
            notes=list(explanation.notes),
        )


ARCHIVED_HIT = (
    "An archived memory, returned because archived ones were asked for; "
    "the restore mutation brings it back to the tier it left."
)


@strawberry.type(description="A memory found by search, with its score explained.")
class SearchHit:
    memory: Memory
    score: float
    explanation: Explanation
    archived: bool = strawberry.field(description=ARCHIVED_HIT)


@strawberry.type(description="The hits of a search, best first.")
class SearchResult:
    hits: list[SearchHit]
    mode: domain.SearchMode
    retrievers: list[domain.Retriever] = strawberry.field(
        description="The retrievers that ran (vector is absent when embeddings are off)."
    )
    notes: list[str] = strawberry.field(description="Anything that limited the search.")
    took_ms: float

    @classmethod
    def of(cls, result: domain.SearchResult, viewer: str | None = None) -> SearchResult:
        """``viewer``: the agent view asked for, which every nested field reads too."""
        return cls(
            hits=[
                SearchHit(
                    memory=Memory.of(h.memory, viewer),
                    score=h.score,
                    explanation=Explanation.of(h.explanation),
                    archived=h.archived,
                )
                for h in result.hits
            ],
            mode=domain.SearchMode(result.mode),
            retrievers=list(result.retrievers),
            notes=list(result.notes),
            took_ms=result.took_ms,
        )


@strawberry.type(description="The weight one factor of the knowledgeContext score had.")
class ContextWeight:
    name: str
    weight: float


@strawberry.type(description="One memory of a knowledge context and its score, factor by factor.")
class ContextItem:
    memory: Memory
    score: float
    components: list[ScoreComponent]
    retrievers: list[RetrieverHit] = strawberry.field(
        description="How the memory became a candidate; empty when only a relation reached it."
    )
    path: GraphPath | None = strawberry.field(
        description="The relation walked from a found memory to this one, when that is how it came."
    )
    archived: bool = strawberry.field(description=ARCHIVED_HIT)
    failure: FailureCapsule | None = strawberry.field(
        description="For a lesson learned from a failure: its capsule, the failure it explains."
    )


@strawberry.type(description="What an agent should know right now, best first.")
class ContextResult:
    items: list[ContextItem]
    weights: list[ContextWeight] = strawberry.field(
        description="The weights used, after rebalancing around recencyWeight."
    )
    max_access_count: int = strawberry.field(
        description="The access count that frequency is normalised by."
    )
    candidates: int = strawberry.field(
        description="How many memories the indexes offered before scoring."
    )
    notes: list[str]
    took_ms: float
    result: strawberry.Private[domain.ContextResult]

    @strawberry.field(
        description="The memories as a text block to put in a prompt, best first, each with "
        "its type, id, why it holds, the failure it was learned from and whether it is "
        "archived; the same text as the MCP tool knowledge_context and the prompt hook "
        "(graphmem inject) give. At most budgetTokens tokens (estimated as 4 characters "
        f"each, {prompt.MIN_BUDGET_TOKENS} to {prompt.MAX_BUDGET_TOKENS}): a memory that "
        "does not fit whole is shortened or left out. Null when no memory is returned or "
        "none fits."
    )
    def context(self, budget_tokens: int = prompt.DEFAULT_BUDGET_TOKENS) -> str | None:
        budget = prompt.check_budget(budget_tokens, field="budgetTokens")
        return domain.context_block(self.result.items, budget_tokens=budget)

    @classmethod
    def of(cls, result: domain.ContextResult, viewer: str | None = None) -> ContextResult:
        """``viewer``: the agent view asked for, which every nested field reads too."""
        return cls(
            result=result,
            items=[
                ContextItem(
                    memory=Memory.of(i.memory, viewer),
                    score=i.score,
                    components=_components(i.components),
                    retrievers=[RetrieverHit.of(h) for h in i.retrievers],
                    path=GraphPath.of(i.path) if i.path else None,
                    archived=i.archived,
                    failure=FailureCapsule.of(i.failure, viewer) if i.failure else None,
                )
                for i in result.items
            ],
            weights=[ContextWeight(name=n, weight=w) for n, w in result.weights.items()],
            max_access_count=result.max_access_count,
            candidates=result.candidates,
            notes=list(result.notes),
            took_ms=result.took_ms,
        )


@strawberry.type(description="The subgraph around a memory, for graph views.")
class Neighborhood:
    center_id: strawberry.ID
    depth: int
    nodes: list[Memory] = strawberry.field(
        description="The centre first, then every memory within depth relations."
    )
    edges: list[Relation] = strawberry.field(
        description="Every relation of the chosen types between two of the nodes."
    )
    truncated: bool = strawberry.field(
        description="More memories were in reach than the node limit allowed."
    )

    @classmethod
    def of(cls, hood: domain.Neighborhood) -> Neighborhood:
        return cls(
            center_id=strawberry.ID(hood.center_id),
            depth=hood.depth,
            nodes=[Memory.of(m) for m in hood.nodes],
            edges=[Relation.of(r) for r in hood.edges],
            truncated=hood.truncated,
        )


def _filters_default(field: str) -> Any:
    return domain_default(domain.SearchFilters, field)


@strawberry.input(description="What a search hit may be; every field given must match.")
class SearchFilters:
    types: list[kinds.MemoryType] = strawberry.field(default_factory=list)
    tiers: list[kinds.Tier] = strawberry.field(default_factory=list)
    statuses: list[kinds.Status] = strawberry.field(default_factory=list)
    tags: list[str] = strawberry.field(
        default_factory=list, description="Memories carrying every one of these tags."
    )
    session_id: strawberry.ID | None = None
    min_confidence: float = _filters_default("min_confidence")
    created_after: datetime | None = strawberry.field(default=None, description="Inclusive.")
    created_before: datetime | None = strawberry.field(default=None, description="Exclusive.")
    occurred_after: datetime | None = strawberry.field(
        default=None, description="When it happened (occurredAt), inclusive."
    )
    occurred_before: datetime | None = strawberry.field(
        default=None, description="When it happened (occurredAt), exclusive."
    )
    include_candidates: bool = _filters_default("include_candidates")
    include_archived: bool = strawberry.field(
        default=_filters_default("include_archived"),
        description="Also archived memories; each such hit is marked archived.",
    )
    include_superseded: bool = strawberry.field(
        default=_filters_default("include_superseded"),
        description="Otherwise a superseded hit is replaced by its successor, unless the "
        "query names a past time in which it held (every mode; HYBRID, GRAPH and "
        "knowledgeContext also weigh how near each memory's time is to it).",
    )


def _parsed(filters: SearchFilters | None) -> domain.SearchFilters | None:
    if filters is None:
        return None
    data = dataclasses.asdict(filters)
    for key in ("created_after", "created_before"):
        if data[key] is not None:
            data[key] = data[key].timestamp()
    return parse_input(domain.SearchFilters, data, "filters")


AgentId = Annotated[
    strawberry.ID | None,
    strawberry.argument(
        description="See only what this agent sees (its own memories and the shared ones). "
        "A key bound to an agent always sees its agent's view and may name no other."
    ),
]


@strawberry.type
class RetrievalQuery:
    @strawberry.field(
        description="What an agent should know right now, best first, each score factor by "
        "factor. Counts a retrieval (retrievalCount) on each memory returned unless "
        "recordAccess is false; retrieval is not use, so accessCount, recency and importance "
        "stay as they are."
    )
    @arguments_of(domain.ContextRequest, placed=AFTER_SESSION)
    async def knowledge_context(
        self,
        info: Info,
        *,
        record_access: bool | None = None,
        project_id: ProjectId = None,
        agent_id: AgentId = None,
        **asked: Any,
    ) -> ContextResult:
        request = parse_request(asked)
        gm = info.context.gm
        result = await write(
            info,
            gm.knowledge_context,
            request,
            record_access=record_access,
            project_id=project_id,
            agent_id=agent_id,
        )
        return ContextResult.of(result, agent_id)

    @strawberry.field(
        description="knowledgeContext as an LLM tool: the function-calling JSON schema."
    )
    def knowledge_context_tool(self, project_id: ProjectId = None) -> JSON:
        # The same in every project; projectId is accepted like on every operation.
        return JSON(domain.tool_definition())

    @strawberry.field(
        description="Hybrid search over vectors, full text and relations; every hit explains "
        "its score."
    )
    @arguments_of(
        domain.SearchRequest,
        inputs={domain.SearchFilters: SearchFilters},
        placed={"project_id": "relation_types"},
    )
    async def search(
        self,
        info: Info,
        *,
        project_id: ProjectId = None,
        agent_id: AgentId = None,
        **asked: Any,
    ) -> SearchResult:
        request = checks.parse(
            domain.SearchRequest, {**asked, "filters": _parsed(asked.get("filters"))}
        )
        result = await run_in_threadpool(
            info.context.gm.search, request, project_id=project_id, agent_id=agent_id
        )
        return SearchResult.of(result, agent_id)

    @strawberry.field(
        description="The memories within depth relations of one, and the relations between them."
    )
    async def neighborhood(
        self,
        info: Info,
        id: strawberry.ID,
        depth: int = 1,
        relation_types: list[kinds.RelationType] | None = None,
        project_id: ProjectId = None,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="The memories and relations that existed at this past time, as "
                "they stood; no nodes when the memory was not yet written."
            ),
        ] = None,
    ) -> Neighborhood:
        hood = await run_in_threadpool(
            info.context.gm.neighborhood,
            str(id),
            depth=depth,
            relation_types=relation_types,
            project_id=project_id,
            as_of=as_of,
        )
        return Neighborhood.of(hood)
