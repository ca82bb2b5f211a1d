"""The pieces the operations' GraphQL documents share: fragments, one document
asking for many ids, and variables in the server's spelling.

Inputs are validated with the models ``GraphMem`` validates them with, so a
bad value fails before any request with the same error and message.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from graphmem.domain.checks import Epoch, Identifier, check_identifier, epoch_seconds
from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import Memory, MemoryInput
from graphmem.domain.retrieval.arguments import Argument, arguments
from graphmem.operations.codec import encode, read
from graphmem.operations.requests import Call

MEMORY = """
fragment M on Memory {
  id projectId sessionId content memoryType tier status confidence importance
  accessCount retrievalCount occurrenceCount feedback feedbackCount pinned source
  suggestedBy selfAssessment tags rationale evidence agentId supersededBy createdAt
  occurredAt updatedAt lastAccessedAt lastRetrievedAt promotedAt archivedAt archivedFrom
  archiveReason activatedAt lastSeen mergedInto evaluatorRelevance variants conflictsWith
  conflictReason validFrom validTo
  visibility copiedFrom copiedFromProject copiedAt copiedBy
  reviewChange reviewCause reviewBy reviewPath reviewMarkedAt
}"""
RELATION = "fragment R on Relation { type fromId toId rationale weight createdAt }"
SESSION = """
fragment S on Session {
  id projectId state name promotionEnabled promotionIntervalSeconds maxItems
  createdAt updatedAt
}"""
STATS = """
fragment P on PromotionStats {
  sessionId projectId enabled intervalSeconds nextRunAt runs totalPromoted lastRunAt
  lastRunId lastTrigger lastPromoted lastFailed lastRotated lastRemaining lastThreshold
}"""
PROJECT = "fragment G on ProjectSettings { autoLinks defaultVisibility }"
CAPSULE = """
  id projectId signature error attempted tool command files fix occurrenceCount
  sessionIds contextMemoryIds lessonId firstSeenAt lastSeenAt fixedAt agentId visibility
"""
COMPONENTS = "components { name value weight contribution }"
HITS = "retrievers { retriever rank score }"
JOB = "id projectId state submittedAt finishedAt error"


@dataclass(frozen=True)
class Extra:
    """An argument of a request's GraphQL field that its model does not hold: the
    project, the agent view, whether access is counted."""

    name: str
    """As GraphQL spells it."""
    type: str
    value: Any


def requested(
    field: str, request: BaseModel, selection: str, *extras: Extra
) -> tuple[str, dict[str, Any]]:
    """The document asking ``field`` with every field of ``request`` as an argument
    (``graphmem.domain.retrieval.arguments``) besides ``extras``, and its
    variables: one variable an argument, named and typed as the argument."""
    declared: list[tuple[str, str, Any]] = []
    for argument in arguments(type(request)):
        value = value_of(argument, getattr(request, argument.name))
        declared.append((argument.camel, graphql_type(argument), value))
    declared += [(e.name, e.type, e.value) for e in extras]
    params = ", ".join(f"${name}: {kind}" for name, kind, _ in declared)
    given = ", ".join(f"{name}: ${name}" for name, _, _ in declared)
    document = f"query({params}) {{ {field}({given}) {selection} }}"
    return document, {name: value for name, _, value in declared}


_NAMED: dict[Any, str] = {
    Identifier: "ID",
    Epoch: "DateTime",
    datetime: "DateTime",
    str: "String",
    int: "Int",
    float: "Float",
    bool: "Boolean",
}
"""The GraphQL scalar of each plain type a request field has; enums and nested
models are named as their classes are (the server's types are those classes)."""


def graphql_type(argument: Argument) -> str:
    """The argument's GraphQL type, as a variable is declared with it."""
    return _named(argument.annotation) + ("" if argument.nullable else "!")


def _named(annotation: Any) -> str:
    if annotation in _NAMED:
        return _NAMED[annotation]
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        (inner,) = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _named(inner)
    if origin is Annotated:
        return _named(get_args(annotation)[0])
    if origin is list:
        (item,) = get_args(annotation)
        return f"[{_named(item)}!]"
    return str(annotation.__name__)


def value_of(argument: Argument, value: Any) -> Any:
    """A validated request field's value as the server reads it: enums by name,
    times (a ``datetime``, or epoch seconds where the field is an ``Epoch``) as
    ISO date-times, a model field by field."""
    if Epoch in (argument.annotation, *get_args(argument.annotation)):
        return iso(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return {
            nested.camel: value_of(nested, getattr(value, nested.name))
            for nested in arguments(type(value))
        }
    return encode(value)


def memory_call(document: str, field: str, variables: Mapping[str, Any]) -> Call[Memory]:
    """A call answering with one memory (``field`` in its data)."""
    return Call(document + MEMORY, variables, lambda data: read(Memory, data[field]))


def memory_mutation(name: str, memory_id: str, project_id: str | None) -> Call[Memory]:
    """Mutation ``name`` of one memory, by id."""
    return memory_call(
        f"mutation($id: ID!, $p: ID) {{ {name}(id: $id, projectId: $p) {{ ...M }} }}",
        name,
        {"id": memory_id, "p": project_id},
    )


ALIASES_PER_REQUEST = 25
"""Ids asked for in one document: the server allows 50 aliases (GRAPHMEM_MAX_ALIASES)."""


def chunked(ids: Sequence[str]) -> list[Sequence[str]]:
    """``ids`` in pieces small enough for one document each (none for no ids)."""
    return [ids[n : n + ALIASES_PER_REQUEST] for n in range(0, len(ids), ALIASES_PER_REQUEST)]


def aliased(
    field: str,
    ids: Sequence[str],
    selection: str,
    fragment: str,
    project_id: str | None,
    as_of: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """One document asking ``field(id: ...)`` once per id, as aliases ``a0``, ``a1``, ...
    (each ``asOf`` a time, when one is given)."""
    params = "".join(f"$id{n}: ID!, " for n in range(len(ids)))
    at = ", asOf: $asOf" if as_of is not None else ""
    fields = " ".join(
        f"a{n}: {field}(id: $id{n}, projectId: $p{at}) {selection}" for n in range(len(ids))
    )
    variables: dict[str, Any] = {f"id{n}": id_ for n, id_ in enumerate(ids)}
    if as_of is not None:
        params += "$asOf: DateTime, "
        variables["asOf"] = as_of
    document = f"query({params}$p: ID) {{ {fields or '__typename'} }}"
    return document + (fragment if ids else ""), {**variables, "p": project_id}


def relation_type(value: RelationType | str) -> RelationType:
    try:
        return RelationType(str(value).upper())
    except ValueError:
        names = ", ".join(t.value for t in RelationType)
        raise InvalidInputError(f"type: must be one of {names}", field="type") from None


def agent(agent_id: str | None) -> str | None:
    return None if agent_id is None else check_identifier("agentId", agent_id)


def project_name(project_id: str | None) -> str:
    """The project a message names: as in process, or the server's own default."""
    return "the server's default project" if project_id is None else f"project {project_id!r}"


def memory_input(item: MemoryInput) -> dict[str, Any]:
    """A memory input as GraphQL variables: its times as ISO date-times."""
    encoded: dict[str, Any] = encode(item)
    encoded["occurredAt"] = iso(item.occurred_at)
    encoded["validFrom"] = iso(item.valid_from)
    encoded["validTo"] = iso(item.valid_to)
    return encoded


def as_of(value: Any) -> str | None:
    """An ``as_of`` time (a datetime, ISO 8601 text or epoch seconds) as the server
    reads it; how far in the future it may be is the server's to judge."""
    if value is None:
        return None
    try:
        return iso(epoch_seconds(value))
    except ValueError as exc:
        raise InvalidInputError(f"as_of: {exc}", field="as_of") from None


def iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return as_datetime(epoch).isoformat()


def json_object(text: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(text)
    return found
