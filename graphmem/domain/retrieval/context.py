"""knowledgeContext scoring (seed 002), as pure functions.

    score = 0.4 * text similarity + 0.3 * recency + 0.2 * confidence
          + 0.1 * access frequency

- text similarity: by default the hybrid relevance of search (cosine
  similarity and BM25 fused on [0, 1], see ``fusion``), computed by the
  retrieval service; the seed's literal formula stays as the named scorer
  ``word_overlap``: ``0.7 * shared / hint words + 0.3 * shared / memory
  words``, words being the case-folded ``\\w+`` runs, each counted once
  (measured on the dev sets: word overlap finds far fewer of the right
  memories, docs/retrieval.md);
- recency: ``exp(-seconds since last access, or else since it happened
  (``occurred_at``, which is the write unless told otherwise) / 604800)``,
  one week as the time constant;
- confidence: the memory's own, in [0, 1];
- access frequency: ``access_count / max access_count in scope`` (the session
  when one is named, otherwise the project); 0 when nothing was accessed.

``recency_weight`` replaces the 0.3 and the other three weights are scaled so
that all four still sum to 1, keeping their proportions (4 : 2 : 1).

Nothing here touches the store or the clock: callers pass ``now``, the
scope's maximum and the text similarity, so every rule is checked with
hand-computed numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from graphmem.domain.checks import Identifier, Text
from graphmem.domain.errors import InvalidInputError, invalid_input
from graphmem.domain.kinds import MemoryType
from graphmem.domain.models import Memory
from graphmem.domain.retrieval.arguments import (
    AS_OF_HELP,
    HAPPENED_AFTER,
    HAPPENED_BEFORE,
    LESS_CERTAIN,
    STOOD_AT,
    Said,
)
from graphmem.domain.retrieval.fusion import DEFAULT_MIN_RELEVANCE, MIN_RELEVANCE_HELP
from graphmem.domain.scoring import ScoreComponent
from graphmem.domain.text import tokens

HINT_MIN_CHARS = 3
HINT_MAX_CHARS = 1_000
DEFAULT_MAX_RESULTS = 5
MAX_RESULTS = 50
DEFAULT_MIN_CONFIDENCE = 0.5
DEFAULT_RECENCY_WEIGHT = 0.3
RECENCY_SECONDS = 604_800.0
"""One week: a memory untouched for a week keeps 1/e of its recency."""

TEXT = "text_similarity"
RECENCY = "recency"
CONFIDENCE = "confidence"
FREQUENCY = "access_frequency"
BASE_WEIGHTS = {TEXT: 0.4, RECENCY: 0.3, CONFIDENCE: 0.2, FREQUENCY: 0.1}
HINT_COVERAGE = 0.7
MEMORY_COVERAGE = 0.3
HYBRID = "hybrid"
WORD_OVERLAP = "word_overlap"
"""The two ways text similarity is measured: the hybrid relevance, or the seed's word
overlap."""


class ContextRequest(BaseModel):
    """The arguments of knowledgeContext, validated the same way on every surface.

    Python uses the snake_case names; the LLM tool and GraphQL the camelCase
    aliases.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        loc_by_alias=False,
    )

    context_hint: Annotated[
        Text,
        Said(
            graphql=None,
            mcp="What you are about to do or discuss; memories are matched against it.",
        ),
    ] = Field(
        min_length=HINT_MIN_CHARS,
        max_length=HINT_MAX_CHARS,
        description="What the agent is about to do or discuss; memories are matched against it.",
    )
    include_types: Annotated[list[MemoryType] | None, Said(graphql=None)] = Field(
        default=None, description="Only memories of these types; all types when omitted."
    )
    min_confidence: Annotated[float, Said(graphql=None, mcp=LESS_CERTAIN)] = Field(
        default=DEFAULT_MIN_CONFIDENCE,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="Leave out memories whose confidence is below this.",
    )
    max_results: Annotated[int, Said(graphql=None, mcp="How many memories.")] = Field(
        default=DEFAULT_MAX_RESULTS,
        ge=1,
        le=MAX_RESULTS,
        description="How many memories to return, best first.",
    )
    recency_weight: Annotated[
        float,
        Said(graphql=None, mcp="Weight of recency; the other factors rebalance to sum to 1."),
    ] = Field(
        default=DEFAULT_RECENCY_WEIGHT,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="Weight of recency in the score; the other weights rebalance to sum to 1.",
    )
    include_superseded: Annotated[
        bool, Said(graphql=None, mcp="Also return memories a newer one supersedes.")
    ] = Field(default=False, description="Also return memories that a newer memory supersedes.")
    include_archived: Annotated[
        bool,
        Said(
            graphql="Also archived memories, each marked archived (they are not counted as "
            "used; restoring one is).",
            mcp="Also archived memories, each marked archived (restore one to use it again).",
        ),
    ] = Field(
        default=False,
        description="Also return archived memories (each marked archived; restore one to "
        "bring it back).",
    )
    session_id: Annotated[
        Identifier | None, Said(graphql=None, mcp="Only this session's memories.")
    ] = Field(
        default=None,
        description="Only this session's memories (the scope of access frequency); "
        "the whole project when omitted.",
    )
    min_relevance: float = Field(
        default=DEFAULT_MIN_RELEVANCE,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description=MIN_RELEVANCE_HELP,
    )
    occurred_after: Annotated[
        datetime | None,
        Said(graphql="Only what happened at or after this time.", mcp=HAPPENED_AFTER),
    ] = Field(
        default=None,
        description="Only memories of what happened at or after this time (ISO 8601).",
    )
    occurred_before: Annotated[
        datetime | None,
        Said(graphql="Only what happened before this time.", mcp=HAPPENED_BEFORE),
    ] = Field(
        default=None,
        description="Only memories of what happened before this time (ISO 8601).",
    )
    as_of: Annotated[
        datetime | None,
        Said(graphql=AS_OF_HELP + " Nothing is counted as retrieved.", mcp=STOOD_AT),
    ] = Field(
        default=None,
        description="Answer as the store stood at this past time (ISO 8601): the memories "
        "that held then, with the tiers and statuses they had; nothing is counted as "
        "retrieved.",
    )


def parse_request(arguments: Mapping[str, Any] | ContextRequest) -> ContextRequest:
    """Validate arguments given by field name or by alias; errors name the field as given."""
    if isinstance(arguments, ContextRequest):
        return arguments
    try:
        return ContextRequest.model_validate(arguments)
    except ValidationError as exc:
        error = invalid_input(exc)
        camel = {name: to_camel(name) for name in ContextRequest.model_fields}
        field = (error.field or "").split(".")[0]
        spoke_camel = isinstance(arguments, Mapping) and camel.get(field) in arguments
        if spoke_camel:  # the caller spoke camelCase: answer in it
            message = error.message.replace(f"{field}:", f"{camel[field]}:")
            raise InvalidInputError(message, field=camel[field]) from None
        raise error from None


def memory_words(memory: Memory) -> frozenset[str]:
    """The words of a memory's content and rationale together."""
    if memory.rationale:
        return tokens(memory.content) | tokens(memory.rationale)
    return tokens(memory.content)


def text_similarity(hint: frozenset[str], memory: frozenset[str]) -> float:
    """70% coverage of the hint's words plus 30% coverage of the memory's words."""
    if not hint or not memory:
        return 0.0
    shared = len(hint & memory)
    return HINT_COVERAGE * shared / len(hint) + MEMORY_COVERAGE * shared / len(memory)


def recency(seconds_since: float) -> float:
    return math.exp(-max(0.0, seconds_since) / RECENCY_SECONDS)


def access_frequency(access_count: int, max_access_count: int) -> float:
    if max_access_count <= 0:
        return 0.0
    return min(max(access_count, 0) / max_access_count, 1.0)


def context_weights(recency_weight: float = DEFAULT_RECENCY_WEIGHT) -> dict[str, float]:
    """The four weights with recency set and the others scaled to fill the rest."""
    others = 1.0 - BASE_WEIGHTS[RECENCY]
    scale = (1.0 - recency_weight) / others
    return {
        name: recency_weight if name == RECENCY else weight * scale
        for name, weight in BASE_WEIGHTS.items()
    }


def score_memory(
    memory: Memory,
    text: float,
    *,
    now: float,
    max_access_count: int,
    weights: Mapping[str, float],
) -> tuple[float, list[ScoreComponent]]:
    """The score and its four components; the contributions sum to the score.

    ``text`` is the text similarity in [0, 1] from the configured scorer."""
    components = [
        ScoreComponent(
            name=name, value=value, weight=weights[name], contribution=value * weights[name]
        )
        for name, value in _values(memory, text, now, max_access_count).items()
    ]
    return sum(c.contribution for c in components), components


def score_total(
    memory: Memory,
    text: float,
    *,
    now: float,
    max_access_count: int,
    weights: Mapping[str, float],
) -> float:
    """``score_memory``'s score alone: every candidate is ranked, and only the
    few returned are explained."""
    return sum(
        value * weights[name]
        for name, value in _values(memory, text, now, max_access_count).items()
    )


def _values(memory: Memory, text: float, now: float, max_access_count: int) -> dict[str, float]:
    return {
        TEXT: min(max(text, 0.0), 1.0),
        RECENCY: recency(now - memory.last_used_at),
        CONFIDENCE: min(max(memory.confidence, 0.0), 1.0),
        FREQUENCY: access_frequency(memory.access_count, max_access_count),
    }


def tool_definition() -> dict[str, Any]:
    """knowledgeContext as an LLM tool (function-calling JSON schema).

    The schema is generated from ``ContextRequest``, the model that validates
    the call, so the limits an LLM sees are the ones enforced.
    """
    schema = ContextRequest.model_json_schema(by_alias=True)
    definitions = schema.pop("$defs", {})
    properties = {name: _inline(prop, definitions) for name, prop in schema["properties"].items()}
    return {
        "name": "knowledge_context",
        "description": (
            "Recall what the memory store knows that is relevant right now: active, "
            "current memories ranked by relevance to the hint (meaning and shared words), "
            "recency, confidence "
            "and how often they were used. Call it before acting on a task."
        ),
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": schema.get("required", []),
            "additionalProperties": False,
        },
    }


def _inline(node: Any, definitions: Mapping[str, Any]) -> Any:
    """The schema with ``$ref``s replaced by their definitions and titles dropped:
    tool-calling APIs accept plain, self-contained schemas best."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(definitions[node["$ref"].rsplit("/", 1)[-1]], definitions)
        return {k: _inline(v, definitions) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node
