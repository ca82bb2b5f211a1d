"""A tool's parameters: a request model's fields as MCP clients see them, or the
tool's own.

A parameter taken from a request model keeps the model's type, limits and
default, so the schema a client sees is what is enforced; the tool gives it a
description written for an agent. The SDK checks the arguments against that
schema, and only against it: the request model checks the rest (text rules,
whitespace, times) once the caller's access is settled, as it does on every
surface. Times are ISO 8601 text to an agent, whatever the model keeps them as.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Union, get_args, get_origin

from annotated_types import BaseMetadata
from pydantic import BaseModel, Field, StringConstraints
from pydantic_core import PydanticUndefined

from graphmem.domain.checks import Epoch
from graphmem.domain.retrieval.arguments import arguments

IsoTime = Annotated[str, Field(max_length=64)]
"""A time as an agent writes it: ISO 8601."""

REQUIRED = PydanticUndefined
"""The default of a parameter a call must give."""


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    default: Any
    into: str
    """The ``GraphMem`` argument it is passed as, or, with ``at``, the request field."""
    at: tuple[str, ...] | None = None
    """Where in the request model it goes (``("filters",)`` for a nested model's
    field; ``()`` for a top-level one); ``None``: not part of the request."""
    shape: Callable[[Any], Any] | None = None
    """What the argument is passed as, from what the client gave."""
    follows: str | None = None
    """The request field it is offered after (``request_fields``)."""


def own(
    name: str,
    annotation: Any,
    default: Any = REQUIRED,
    *,
    into: str | None = None,
    at: tuple[str, ...] | None = None,
    shape: Callable[[Any], Any] | None = None,
    follows: str | None = None,
) -> Param:
    """A parameter the tool declares itself, passed to ``GraphMem`` as ``into``
    (its own name by default), or placed in the request ``at`` a path."""
    return Param(name, annotation, default, into or name, at, shape, follows)


def fields(model: type[BaseModel], *, at: tuple[str, ...] = (), **described: str) -> list[Param]:
    """The fields of ``model`` named in ``described``, in that order, each with its
    description; ``at`` is where ``model`` sits in the request."""
    return [_param(model, name, description, at) for name, description in described.items()]


def request_fields(
    model: type[BaseModel], *names: str, at: tuple[str, ...] = (), after: Sequence[Param] = ()
) -> list[Param]:
    """The fields of a request model named (every field, in its order, when none
    is), each described as the model words it for an agent
    (``graphmem.domain.retrieval.arguments``); ``after``: the tool's own
    parameters, each offered behind the field its ``follows`` names."""
    described = {a.name: a.described("mcp") for a in arguments(model)}
    found = []
    for name in names or tuple(described):
        found.append(_param(model, name, described[name], at))
        found += [p for p in after if p.follows == name]
    return found


def _param(
    model: type[BaseModel], name: str, description: str | None, at: tuple[str, ...]
) -> Param:
    """One field of ``model`` with the type, limits and default it is validated with."""
    info = model.model_fields[name]
    shown = [m for m in map(_constraint, info.metadata) if m is not None]
    annotation: Any = Annotated[(_shown(info.annotation), *shown, Field(description=description))]
    default = info.get_default(call_default_factory=True)
    if isinstance(default, list):
        default = tuple(default)
    return Param(name, annotation, default, name, at)


def _shown(annotation: Any) -> Any:
    """``annotation`` with only what its JSON schema says: no validators, no
    normalising, times as ISO 8601 text."""
    if annotation == Epoch or annotation is datetime:
        return IsoTime
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *metadata = get_args(annotation)
        kept = [m for m in map(_constraint, metadata) if m is not None]
        return Annotated[(_shown(inner), *kept)] if kept else _shown(inner)
    if origin in (Union, types.UnionType):
        return Union[tuple(_shown(arg) for arg in get_args(annotation))]  # noqa: UP007
    if origin in (list, Sequence):
        (item,) = get_args(annotation)
        return list[_shown(item)]  # type: ignore[misc]
    return annotation


def _constraint(metadata: Any) -> Any:
    """``metadata`` as far as a JSON schema shows it; ``None`` when it shows none."""
    if isinstance(metadata, StringConstraints):
        return dataclasses.replace(metadata, strip_whitespace=None, to_upper=None, to_lower=None)
    return metadata if isinstance(metadata, BaseMetadata) else None
