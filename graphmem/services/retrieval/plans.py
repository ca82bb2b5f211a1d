"""Search and knowledgeContext as plans of the one retrieval pipeline, and each
one's result made from what the pipeline kept.

They differ in what they ask of the pipeline, not in how it runs: search's
mode chooses the retrievers and whether relations are walked, and it ranks by
``search.rank_score``; knowledgeContext runs every retriever, walks
``context_depth`` relations from its best hits, scores by seed 002's formula
(``context``) and lets the injection policy choose what an agent is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.domain.clock import Clock, stored_now
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Status
from graphmem.domain.models import Memory
from graphmem.domain.policy import InjectionPolicy
from graphmem.domain.retrieval import context as ctx
from graphmem.domain.retrieval.explain import (
    ContextItem,
    ContextResult,
    Explanation,
    Retriever,
    SearchHit,
    SearchResult,
)
from graphmem.domain.retrieval.search import (
    TRAVERSED,
    SearchFilters,
    SearchMode,
    SearchRequest,
    rank_score,
    rank_total,
)
from graphmem.domain.scoring import ScoreComponent
from graphmem.domain.validity import check_as_of
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.services.retrieval.pipeline import Outcome, Plan, TimeUse

# Search asks each retriever for at least this many scores, and reads at least
# this many candidates, however small its limit.
SEARCH_MIN_FETCH = 20
SEARCH_MIN_DETAIL = 10


@dataclass(frozen=True)
class SearchScoring:
    """Search's multi-factor score (``search.rank_score``)."""

    weights: Mapping[str, float]

    def total(self, memory: Memory, relevance: float, *, now: float) -> float:
        return rank_total(memory, relevance, now=now, weights=self.weights)

    def components(self, memory: Memory, relevance: float, *, now: float) -> list[ScoreComponent]:
        return rank_score(memory, relevance, now=now, weights=self.weights)[1]


@dataclass(frozen=True)
class ContextScoring:
    """knowledgeContext's score (seed 002, ``context.score_memory``)."""

    weights: dict[str, float]
    max_access: int
    """The scope's highest access count, frequency's denominator."""

    def total(self, memory: Memory, relevance: float, *, now: float) -> float:
        return ctx.score_total(
            memory, relevance, now=now, max_access_count=self.max_access, weights=self.weights
        )

    def components(self, memory: Memory, relevance: float, *, now: float) -> list[ScoreComponent]:
        return ctx.score_memory(
            memory, relevance, now=now, max_access_count=self.max_access, weights=self.weights
        )[1]


def moment(clock: Clock, as_of: float | datetime | None) -> tuple[float, float | None]:
    """When a read scores (now, or the past time it reads) and that past time."""
    now = stored_now(clock)
    at = None if as_of is None else check_as_of(as_of, now)
    return (now if at is None else at), at


def traversal_slots(limit: int, config: RetrievalConfig) -> int:
    """Results that memories reached only by a relation may take: a share of the
    limit, at least one, so strong direct hits stay in the results."""
    return max(1, int(limit * config.traversal_share))


def search_plan(
    request: SearchRequest, config: RetrievalConfig, clock: Clock, *, embeddings: bool
) -> Plan:
    """Search in its mode: VECTOR and FULLTEXT run one retriever and walk no
    relation; HYBRID runs both and walks ``depth`` relations from its best
    ``limit``, whose reached memories take at most a share of the results;
    GRAPH walks at least one from its best ``graph_seeds`` and does not cap
    what that brings in; every result is ranked by its own score."""
    mode = request.mode
    now, at = moment(clock, request.as_of)
    if not embeddings and mode is SearchMode.VECTOR:
        raise InvalidInputError(
            "mode: VECTOR search needs embeddings, which are off "
            "(GRAPHMEM_EMBEDDER=none); use HYBRID, FULLTEXT or GRAPH",
            field="mode",
        )
    walks = mode in (SearchMode.HYBRID, SearchMode.GRAPH)
    depth = max(request.depth, 1) if mode is SearchMode.GRAPH else request.depth
    return Plan(
        text=request.query,
        filters=request.filters,
        now=now,
        at=at,
        limit=request.limit,
        min_relevance=request.min_relevance,
        fetch=max(request.limit * config.search_overfetch, SEARCH_MIN_FETCH),
        detail=max(request.limit * config.candidate_overfetch, SEARCH_MIN_DETAIL),
        vector=mode is not SearchMode.FULLTEXT and embeddings,
        fulltext=mode is not SearchMode.VECTOR,
        recent=True,
        feedback=True,
        time=TimeUse.WEIGHED if walks else TimeUse.PAST,
        word_overlap=False,
        depth=depth if walks else 0,
        relation_types=request.relation_types,
        seeds=config.graph_seeds if mode is SearchMode.GRAPH else request.limit,
        reached_at_most=(
            traversal_slots(request.limit, config) if mode is SearchMode.HYBRID else None
        ),
        scoring=SearchScoring(config.weights.normalised()),
    )


def search_result(
    request: SearchRequest, plan: Plan, outcome: Outcome, started: float
) -> SearchResult:
    """Every hit explained: its score's parts, its retrievers, the relations
    walked to it, what it replaces and the exchange it was scored as."""
    found, memories = outcome.found, outcome.memories
    exchanged = _exchange_notes(found.exchanges)
    hits = [
        SearchHit(
            memory=outcome.full[memory_id],
            score=outcome.scores[memory_id],
            explanation=Explanation(
                components=plan.scoring.components(
                    memories[memory_id], outcome.relevance[memory_id], now=plan.now
                ),
                retrievers=found.explained(memory_id),
                path=outcome.paths.get(memory_id),
                replaces=outcome.replaces.get(memory_id, []),
                notes=exchanged.get(memory_id, [])
                + _substance_notes(found.slight, memory_id)
                + _time_notes(outcome, memory_id)
                + _review_notes(outcome.full[memory_id]),
            ),
        )
        for memory_id in outcome.results()
    ]
    retrievers = [
        r
        for r, used in (
            (Retriever.VECTOR, plan.vector),
            (Retriever.FULLTEXT, plan.fulltext),
            (Retriever.FEEDBACK, Retriever.FEEDBACK in found.rankings),
            (Retriever.TIME, Retriever.TIME in found.rankings),
        )
        if used
    ]
    return SearchResult(
        hits=hits,
        mode=request.mode.value,
        retrievers=retrievers,
        notes=outcome.notes,
        took_ms=(time.perf_counter() - started) * 1000.0,
    )


def context_plan(
    request: ctx.ContextRequest,
    config: RetrievalConfig,
    clock: Clock,
    policy: InjectionPolicy,
    max_access: Callable[[str | None], int],
) -> tuple[Plan, ContextScoring]:
    """knowledgeContext: both retrievers; what the policy allows (candidates
    only in its candidate slots); ``context_depth`` relations walked from the
    best ``max_results``; scored by seed 002's formula with ``recency_weight``
    and the highest access count of the session named (``max_access``), or
    of the project."""
    now, at = moment(clock, request.as_of)
    hybrid = config.context_text_scorer == ctx.HYBRID
    filters = SearchFilters(
        types=request.include_types or [],
        session_id=request.session_id,
        min_confidence=request.min_confidence,
        statuses=[] if policy.candidate_slots else [Status.ACTIVE],
        include_candidates=policy.candidate_slots > 0,
        include_superseded=request.include_superseded,
        include_archived=request.include_archived,
        occurred_after=request.occurred_after,
        occurred_before=request.occurred_before,
    )
    scoring = ContextScoring(
        ctx.context_weights(request.recency_weight), max_access(request.session_id)
    )
    plan = Plan(
        text=request.context_hint,
        filters=filters,
        now=now,
        at=at,
        limit=request.max_results,
        min_relevance=request.min_relevance,
        fetch=request.max_results * config.context_overfetch,
        detail=request.max_results * config.candidate_overfetch,
        vector=True,
        fulltext=True,
        recent=hybrid,
        feedback=hybrid,
        time=TimeUse.WEIGHED,
        word_overlap=not hybrid,
        depth=config.context_depth,
        relation_types=TRAVERSED,
        seeds=request.max_results,
        reached_at_most=traversal_slots(request.max_results, config),
        scoring=scoring,
        policy=policy,
    )
    return plan, scoring


def context_items(plan: Plan, outcome: Outcome) -> list[ContextItem]:
    """Each item with its score's parts, its retrievers and the relations walked to it."""
    return [
        ContextItem(
            memory=outcome.full[memory_id],
            score=outcome.scores[memory_id],
            components=plan.scoring.components(
                outcome.memories[memory_id], outcome.relevance[memory_id], now=plan.now
            ),
            retrievers=outcome.found.explained(memory_id),
            path=outcome.paths.get(memory_id),
        )
        for memory_id in outcome.results()
    ]


def context_result(
    scoring: ContextScoring, items: list[ContextItem], outcome: Outcome, started: float
) -> ContextResult:
    """The items with the weights and access count that scored them."""
    return ContextResult(
        items=items,
        weights=scoring.weights,
        max_access_count=scoring.max_access,
        candidates=len(outcome.found.memories),
        notes=outcome.notes + _marked_note([item.memory for item in items]),
        took_ms=(time.perf_counter() - started) * 1000.0,
    )


def _review_notes(memory: Memory) -> list[str]:
    """A hit marked for review says why: what it rests on changed."""
    mark = memory.review_mark
    return [] if mark is None else [f"needs review: {mark.reason}"]


def _marked_note(memories: Sequence[Memory]) -> list[str]:
    """The memories handed out that need review, named once for the whole answer."""
    marked = [m.id for m in memories if m.review_mark is not None]
    if not marked:
        return []
    return [
        f"{len(marked)} of these need review (a memory they rest on stopped being current): "
        + ", ".join(marked)
    ]


def _time_notes(outcome: Outcome, memory_id: str) -> list[str]:
    """How near a hit's time is to the time the query named, when that weighed."""
    timed = outcome.timed
    if timed is None or memory_id not in timed.near:
        return []
    return [f"{timed.near[memory_id]:.2f} near the time the query names ({timed.words!r})"]


def _substance_notes(slight: Mapping[str, float], memory_id: str) -> list[str]:
    """What a hit that says little kept of its relevance (fusion.py, substance)."""
    if memory_id not in slight:
        return []
    return [
        f"says little (few content words): keeps {slight[memory_id]:.2f} of its fused relevance"
    ]


def _exchange_notes(pairs: Mapping[str, str]) -> dict[str, list[str]]:
    """What a hit scored as one exchange with another turn says (exchange.py)."""
    notes: dict[str, list[str]] = {}
    for answer, asked in pairs.items():
        notes.setdefault(answer, []).append(
            f"scored as one exchange with {asked}, the question before it in its "
            "session: both take the mean of their relevances"
        )
        notes.setdefault(asked, []).append(
            f"scored as one exchange with {answer}, the turn after this question: "
            "both take the mean of their relevances"
        )
    return notes
