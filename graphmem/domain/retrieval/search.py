"""Hybrid search: its arguments, its filters and its final ranking, as pure code.

The pipeline (run by ``Retrieval.search``):

1. candidates from the vector index (kNN on the query's embedding) and the
   full-text index (content and rationale), each over-fetched and filtered;
   when both ran and the query is long, its last sentences are embedded too
   and share the candidates' cosine (``recent``); when it is short, the
   candidates are scored again by BM25 with the words most typical of the
   best first hits added (``feedback``);
2. fused into one relevance in [0, 1] (cosine and BM25 share, ``fusion``), a
   question turn and the turn after it in the same session scored as one
   exchange (``exchange``); hits below ``min_relevance`` are dropped, and
   when none is left the result is empty with a note saying nothing was
   relevant;
3. a superseded hit is replaced by the memory that supersedes it (the newest
   one of its chain that passes the filters), which inherits its relevance,
   unless the query names a past time in which it held (``when``: every mode
   keeps what held then; HYBRID, GRAPH and knowledgeContext also weigh each
   candidate by how near its time is to a time the query names);
4. expanded along ENABLES, CONSTRAINS and RELATED_TO up to ``depth``: a
   memory reached from a hit inherits the hit's relevance times a factor per
   relation walked, highest for walking to a rule that CONSTRAINS what was
   found (an agent must see the rules that bind what it is about to do);
5. re-ranked by the multi-factor score below.

Modes choose the retrievers: VECTOR and FULLTEXT run one (no traversal),
HYBRID both plus traversal (which takes at most a share of the results, so
strong direct hits stay), GRAPH both with traversal of at least one relation
from the best few hits and no cap on what it brings in. A reached memory
ranks by the relevance it inherits (its seed's times the relations'
factors), so in both modes it comes after the direct hits that are more
relevant than that: on the dev sets GRAPH ranks as HYBRID does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from graphmem.domain.checks import MAX_TAGS, Epoch, Identifier, Tag, Text
from graphmem.domain.kinds import MemoryType, RelationType, Status, Tier
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.arguments import (
    AS_OF_HELP,
    HAPPENED_AFTER,
    HAPPENED_BEFORE,
    LESS_CERTAIN,
    STOOD_AT,
    Said,
)
from graphmem.domain.retrieval.context import RECENCY_SECONDS
from graphmem.domain.retrieval.explain import PathStep
from graphmem.domain.retrieval.fusion import DEFAULT_MIN_RELEVANCE, MIN_RELEVANCE_HELP
from graphmem.domain.scoring import ScoreComponent

MAX_QUERY_CHARS = 1_000
MAX_LIMIT = 50
MAX_DEPTH = 3
TRAVERSED = (RelationType.ENABLES, RelationType.CONSTRAINS, RelationType.RELATED_TO)


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class SearchMode(StrEnum):
    HYBRID = "HYBRID"
    VECTOR = "VECTOR"
    FULLTEXT = "FULLTEXT"
    GRAPH = "GRAPH"


class SearchFilters(_Input):
    """What a result may be. Candidates are shown unless excluded; archived and
    superseded memories only on request (a superseded hit is otherwise
    replaced by its successor, unless the query names a past time in which
    it held)."""

    types: list[MemoryType] = Field(
        default_factory=list, description="Only memories of these types."
    )
    tiers: list[Tier] = Field(default_factory=list, description="Only these tiers.")
    statuses: list[Status] = Field(default_factory=list, description="Only these statuses.")
    tags: list[Tag] = Field(
        default_factory=list, max_length=MAX_TAGS, description="Every one of these tags."
    )
    session_id: Identifier | None = Field(default=None, description="Only this session's.")
    min_confidence: float = Field(
        default=0.0, ge=0.0, le=1.0, allow_inf_nan=False, description=LESS_CERTAIN
    )
    created_after: float | None = Field(default=None, allow_inf_nan=False)
    """Epoch seconds, inclusive."""
    created_before: float | None = Field(default=None, allow_inf_nan=False)
    """Epoch seconds, exclusive."""
    occurred_after: Annotated[Epoch | None, Said(mcp=HAPPENED_AFTER)] = Field(
        default=None, description="When it happened (occurredAt), inclusive."
    )
    """Epoch seconds."""
    occurred_before: Annotated[Epoch | None, Said(mcp=HAPPENED_BEFORE)] = Field(
        default=None, description="When it happened (occurredAt), exclusive."
    )
    """Epoch seconds."""
    include_candidates: bool = Field(default=True, description="Also unconfirmed candidates.")
    include_archived: bool = Field(
        default=False, description="Also archived memories; each such hit is marked archived."
    )
    include_superseded: bool = Field(
        default=False, description="Keep superseded hits instead of their successors."
    )

    def archived_allowed(self) -> bool:
        """Asking for the archived tier by name counts as asking for archived memories."""
        return self.include_archived or Tier.ARCHIVED in self.tiers

    def params(self) -> dict[str, Any]:
        """The filters as parameters of the candidate statements."""
        return {
            "types": [t.value for t in self.types],
            "tiers": [t.value for t in self.tiers],
            "statuses": [s.value for s in self.statuses],
            "tags": list(self.tags),
            "session_id": self.session_id,
            "min_confidence": self.min_confidence,
            "created_after": self.created_after,
            "created_before": self.created_before,
            "occurred_after": self.occurred_after,
            "occurred_before": self.occurred_before,
            "include_candidates": self.include_candidates,
            "include_archived": self.archived_allowed(),
            "include_superseded": self.include_superseded,
        }

    def allows(self, memory: Memory) -> bool:
        """The statements' WHERE clause, for memories reached by traversal."""
        return (
            self._kind_allows(memory)
            and self._origin_allows(memory)
            and _within(memory.created_at, self.created_after, self.created_before)
            and _within(memory.occurred, self.occurred_after, self.occurred_before)
        )

    def _kind_allows(self, memory: Memory) -> bool:
        """Its type, tier and status: named ones only, when any are named, and
        candidates, archived and superseded memories as the flags say."""
        return (
            (not self.types or memory.memory_type in self.types)
            and (not self.tiers or memory.tier in self.tiers)
            and (self.archived_allowed() or memory.tier is not Tier.ARCHIVED)
            and (not self.statuses or memory.status in self.statuses)
            and (self.include_candidates or memory.status is not Status.CANDIDATE)
            and (self.include_superseded or memory.superseded_by is None)
        )

    def _origin_allows(self, memory: Memory) -> bool:
        """Every tag asked for, the session asked for, and enough confidence."""
        return (
            all(tag in memory.tags for tag in self.tags)
            and (self.session_id is None or memory.session_id == self.session_id)
            and memory.confidence >= self.min_confidence
        )


def _within(value: float, after: float | None, before: float | None) -> bool:
    """``after`` inclusive, ``before`` exclusive, either open when ``None``."""
    return (after is None or value >= after) and (before is None or value < before)


class SearchRequest(_Input):
    """The arguments of search; a field's description is what every surface says of
    it, unless its ``Said`` words it otherwise (``arguments``)."""

    query: Annotated[Text, Said(graphql=None)] = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for, in words."
    )
    mode: Annotated[SearchMode, Said(graphql=None)] = Field(
        default=SearchMode.HYBRID,
        description="HYBRID: both indexes plus relations; VECTOR or FULLTEXT: one index; "
        "GRAPH: both indexes plus at least one relation walked from the best few hits, "
        "with no cap on what that brings in.",
    )
    limit: Annotated[int, Said(graphql=None)] = Field(
        default=10, ge=1, le=MAX_LIMIT, description="How many hits."
    )
    filters: Annotated[SearchFilters, Said(graphql=None)] = Field(
        default_factory=SearchFilters, description="What a hit may be."
    )
    depth: Annotated[int, Said(graphql=None)] = Field(
        default=1, ge=0, le=MAX_DEPTH, description="Relations walked from each hit."
    )
    """0: no traversal."""
    relation_types: Annotated[list[RelationType], Said(graphql=None)] = Field(
        default_factory=lambda: list(TRAVERSED),
        description="Relations to walk (not SUPERSEDES); ENABLES, CONSTRAINS and RELATED_TO "
        "when omitted.",
    )
    min_relevance: float = Field(
        default=DEFAULT_MIN_RELEVANCE,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description=MIN_RELEVANCE_HELP,
    )
    """Direct hits below this relevance (see ``fusion``) are left out; memories
    reached from a kept hit by traversal stay. 0 keeps every candidate."""
    as_of: Annotated[
        Epoch | None,
        Said(
            graphql=AS_OF_HELP + " Relations are walked as they were; a superseded memory "
            "is not replaced (it had stopped holding).",
            mcp=STOOD_AT,
        ),
    ] = Field(
        default=None,
        description="Search the store as it stood at this past time (ISO 8601): the "
        "memories that held then, with their tiers and statuses then, along the relations "
        "of then.",
    )

    @field_validator("filters", "relation_types", mode="before")
    @classmethod
    def _null_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        """Surfaces pass an omitted optional argument as null: the default applies."""
        # A field validator always knows its field; only model validators get None.
        if value is None and info.field_name is not None:
            return cls.model_fields[info.field_name].get_default(call_default_factory=True)
        return value

    @field_validator("relation_types")
    @classmethod
    def _traversable(cls, types: list[RelationType]) -> list[RelationType]:
        if RelationType.SUPERSEDES in types:
            raise ValueError(
                "SUPERSEDES is not walked: a superseded hit is replaced by its successor "
                "(filters.include_superseded keeps it instead)"
            )
        return list(dict.fromkeys(types))


@dataclass(frozen=True)
class RankWeights:
    """The multi-factor score of search results; normalised to sum to 1."""

    relevance: float = 0.7
    importance: float = 0.1
    recency: float = 0.1
    confidence: float = 0.1

    def normalised(self) -> dict[str, float]:
        raw = {
            "relevance": self.relevance,
            "importance": self.importance,
            "recency": self.recency,
            "confidence": self.confidence,
        }
        total = sum(raw.values())
        return {name: weight / total for name, weight in raw.items()}


@dataclass(frozen=True)
class RelationFactors:
    """The share of relevance that crosses one relation during traversal."""

    constrained_by: float = 0.9
    """Walking from a memory to a rule that CONSTRAINS it."""
    constrains: float = 0.5
    """Walking from a rule to what it CONSTRAINS."""
    enables: float = 0.6
    related_to: float = 0.5

    def of(self, step: PathStep, towards: str) -> float:
        """The factor of ``step`` when walking it to the memory ``towards``."""
        match step.type:
            case RelationType.CONSTRAINS:
                return self.constrained_by if step.from_id == towards else self.constrains
            case RelationType.ENABLES:
                return self.enables
            case _:
                return self.related_to

    def along(self, steps: list[PathStep], node_ids: list[str]) -> float:
        """The product of the factors along a path (``node_ids`` from the seed out)."""
        factor = 1.0
        for step, towards in zip(steps, node_ids[1:], strict=True):
            factor *= self.of(step, towards)
        return factor


def rank_score(
    memory: Memory, relevance: float, *, now: float, weights: Mapping[str, float]
) -> tuple[float, list[ScoreComponent]]:
    """relevance, importance, recency and confidence, weighted; parts sum to the total."""
    components = [
        ScoreComponent(
            name=name, value=value, weight=weights[name], contribution=value * weights[name]
        )
        for name, value in _rank_values(memory, relevance, now).items()
    ]
    return sum(c.contribution for c in components), components


def rank_total(
    memory: Memory, relevance: float, *, now: float, weights: Mapping[str, float]
) -> float:
    """``rank_score``'s total alone: every candidate is ranked, and only the few
    returned are explained."""
    return sum(
        value * weights[name] for name, value in _rank_values(memory, relevance, now).items()
    )


def _rank_values(memory: Memory, relevance: float, now: float) -> dict[str, float]:
    return {
        "relevance": relevance,
        "importance": min(max(memory.importance, 0.0), 1.0),
        "recency": math.exp(-max(0.0, now - memory.last_used_at) / RECENCY_SECONDS),
        "confidence": min(max(memory.confidence, 0.0), 1.0),
    }


def tie_order(memory: Memory) -> tuple[float, float, str]:
    """How results of equal score are ordered, the same in every call: what
    happened more recently first, then what was written more recently, then by
    id (ids count up in the order of writing, within a batch too): never the
    order in which the candidates happened to arrive."""
    return (-memory.occurred, -memory.created_at, memory.id)
