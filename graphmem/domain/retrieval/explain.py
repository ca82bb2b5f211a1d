"""What retrieval returns: results that explain themselves.

An agent (or the person debugging one) must be able to see why a memory was
put in front of it: each part of its score, which retriever found it and at
what rank, the relations that brought it in, and what it replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, computed_field

from graphmem.domain.capsules import FailureCapsule
from graphmem.domain.clock import as_datetime
from graphmem.domain.kinds import RelationType, Tier
from graphmem.domain.models import Memory
from graphmem.domain.relations import Relation
from graphmem.domain.retrieval import prompt
from graphmem.domain.scoring import ScoreComponent

EXPIRED_SHOWN = 3
"""Expired memories a note names; the rest are counted."""
PREVIEW_CHARS = 40


def expired_note(memories: Sequence[Memory]) -> str:
    """Why memories that match the query are not in the answer: their validity
    ended (``validTo`` passed), so they no longer hold. Said outright, because
    an agent told nothing matched would write the fact again."""
    shown = []
    for memory in memories[:EXPIRED_SHOWN]:
        words = " ".join(memory.content.split())
        if len(words) > PREVIEW_CHARS:
            words = words[: PREVIEW_CHARS - 1] + "…"
        ended = as_datetime(memory.valid_to or 0.0).isoformat()
        shown.append(f'{memory.id} "{words}" (validTo passed at {ended})')
    more = len(memories) - len(shown)
    rest = f", and {more} more" if more else ""
    return f"left out as expired: {', '.join(shown)}{rest}"


class Retriever(StrEnum):
    VECTOR = "vector"
    FULLTEXT = "fulltext"
    FEEDBACK = "feedback"
    """The candidates scored again by BM25, the query expanded by the words most
    typical of the best first hits (pseudo-relevance feedback, ``feedback.py``);
    its rank is among the candidates that hold any of those words."""
    TIME = "time"
    """The memories of the time a question names and asks for alone ("What
    happened on March 4, 2025?": ``when.asks_time_alone``), nearest the
    question in meaning first; its score is that cosine."""


class RetrieverHit(BaseModel):
    """One retriever's opinion of a memory."""

    model_config = ConfigDict(frozen=True)

    retriever: Retriever
    rank: int
    """1-based rank among that retriever's results, after the filters."""
    score: float
    """The retriever's own score: cosine similarity for vectors, BM25 over the
    query's total IDF for full text (over the expanded query's for feedback)."""


class PathStep(BaseModel):
    """One relation walked, written the way it is stored: ``from_id -[type]-> to_id``."""

    model_config = ConfigDict(frozen=True)

    type: RelationType
    from_id: str
    to_id: str


class GraphPath(BaseModel):
    """How traversal reached a memory from a retrieved one."""

    model_config = ConfigDict(frozen=True)

    seed_id: str
    """The memory a retriever found, where the walk started."""
    steps: list[PathStep]
    """Relations in walking order; the last one touches the explained memory."""
    factor: float
    """The share of the seed's relevance this memory inherits along the path."""


class Explanation(BaseModel):
    model_config = ConfigDict(frozen=True)

    components: list[ScoreComponent]
    """Every part of the score; their contributions sum to it."""
    retrievers: list[RetrieverHit] = Field(default_factory=list)
    """Which retrievers found the memory and where; empty when only traversal reached it."""
    path: GraphPath | None = None
    """The relations that brought the memory in, when traversal did."""
    replaces: list[str] = Field(default_factory=list)
    """Ids of the superseded memories this one stands in for, oldest first; each
    was found, and the chain of SUPERSEDES edges leads from it to this memory."""
    notes: list[str] = Field(default_factory=list)


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    explanation: Explanation

    @computed_field  # type: ignore[prop-decorator]
    @property
    def archived(self) -> bool:
        """Found among archived memories (asked for with ``include_archived``);
        ``restore`` brings it back to the tier it left."""
        return self.memory.tier is Tier.ARCHIVED


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    hits: list[SearchHit]
    mode: str
    retrievers: list[Retriever]
    """The retrievers that ran (vector is absent when embeddings are off; feedback
    runs for a short query when both others did, time for a question asking for
    a time alone)."""
    notes: list[str] = Field(default_factory=list)
    """Anything that limited the search, e.g. embeddings being disabled."""
    took_ms: float


class ContextItem(BaseModel):
    """One memory of a knowledge context and its seed-002 score, factor by factor."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    components: list[ScoreComponent]
    retrievers: list[RetrieverHit] = Field(default_factory=list)
    """How the memory became a candidate (the formula is applied to index candidates);
    empty when only a relation reached it."""
    path: GraphPath | None = None
    """The relation walked from a found memory to this one, when that is how it came."""
    failure: FailureCapsule | None = None
    """For a lesson learned from a failure: its capsule, the failure it explains."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def archived(self) -> bool:
        """An archived memory, returned because ``include_archived`` asked for them."""
        return self.memory.tier is Tier.ARCHIVED


class ContextResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    items: list[ContextItem]
    weights: dict[str, float]
    """The weights used, after rebalancing around ``recency_weight``."""
    max_access_count: int
    """The access count that frequency is normalised by."""
    candidates: int
    """How many memories the indexes offered before scoring."""
    notes: list[str] = Field(default_factory=list)
    took_ms: float

    def prompt_block(self, *, budget_tokens: int = prompt.DEFAULT_BUDGET_TOKENS) -> str | None:
        """The memories as the text block to put in a prompt, the same on every
        surface (graphmem.domain.retrieval.prompt); ``None`` when none fits."""
        budget = prompt.check_budget(budget_tokens, field="budget_tokens")
        return context_block(self.items, budget_tokens=budget)


class Neighborhood(BaseModel):
    """The subgraph around a memory, for graph views."""

    model_config = ConfigDict(frozen=True)

    center_id: str
    depth: int
    nodes: list[Memory]
    """The centre first, then every memory within ``depth`` relations."""
    edges: list[Relation]
    """Every relation of the chosen types between two of the nodes."""
    truncated: bool = False
    """More memories were in reach than the node limit allowed."""


class BackfillResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    embedded: int
    remaining: int
    """Memories still without an embedding (0 unless the run was limited)."""
    took_s: float


def context_block(
    items: Sequence[ContextItem], *, budget_tokens: int = prompt.DEFAULT_BUDGET_TOKENS
) -> str | None:
    """The memories, best first, as many as fit in ``budget_tokens``; ``None``
    if none does (or there are none).

    Each memory names its id, so the agent can give feedback on it, relate or
    supersede it, and says why it holds, the failure it was learned from and
    whether it is archived. A memory that does not fit whole is shortened to
    its content when enough room is left to say something, and ends the block.
    """
    lines = [prompt.HEADER]
    left = budget_tokens - prompt.estimate_tokens(prompt.HEADER) - 1
    for item in items:
        head, content, tail = _parts(item)
        entry = "\n".join([head + content + tail, *_notes(item)])
        cost = prompt.estimate_tokens(entry) + 1
        if cost <= left:
            lines.append(entry)
            left -= cost
            continue
        room = (left - 1) * prompt.CHARS_PER_TOKEN - len(head) - len(tail) - len(prompt.ELLIPSIS)
        if room >= prompt.MIN_SHORTENED_TOKENS * prompt.CHARS_PER_TOKEN:
            lines.append(head + content[:room].rstrip() + prompt.ELLIPSIS + tail)
        break
    return "\n".join(lines) if len(lines) > 1 else None


def _parts(item: ContextItem) -> tuple[str, str, str]:
    """The memory's line: its type, its content (each further line indented to
    stay inside the item) and its id."""
    memory = item.memory
    kind = f"[{memory.memory_type.value}] " if memory.memory_type else ""
    content = "\n  ".join(memory.content.strip().splitlines())
    return f"- {kind}", content, f" (memory {memory.id})"


def _notes(item: ContextItem) -> list[str]:
    """What the agent should know besides the content before relying on it."""
    memory, notes = item.memory, []
    if memory.rationale:
        notes.append(f"  why: {memory.rationale.strip()}")
    if item.failure is not None:
        fix = f"; fixed by: {item.failure.fix.strip()}" if item.failure.fix else ""
        notes.append(f"  learned from a failure seen {item.failure.occurrence_count}x{fix}")
    if item.archived:
        reason = f" ({memory.archive_reason})" if memory.archive_reason else ""
        notes.append(f"  archived{reason}: restore it before relying on it")
    if (mark := memory.review_mark) is not None:
        notes.append(f"  needs review: {mark.reason}")
    return notes
