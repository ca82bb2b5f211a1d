"""A resolver's arguments built from the request model it validates into.

``arguments_of`` gives a resolver the model's fields as GraphQL arguments (in
the model's order, with its defaults and each field's GraphQL description, see
``graphmem.domain.retrieval.arguments``) beside the arguments the resolver
declares itself (the project, the agent view); the resolver gets the model's
fields as keywords, to validate as they came. A field added to the model is
therefore an argument without a line here or in the resolver.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import strawberry
from pydantic import BaseModel

from graphmem.domain.checks import Epoch, Identifier
from graphmem.domain.retrieval.arguments import REQUIRED, Argument, arguments

F = TypeVar("F", bound=Callable[..., Any])

_SCALARS: Mapping[Any, Any] = {Identifier: strawberry.ID, Epoch: datetime}
"""Annotated types GraphQL shows as a scalar of their own: an id, a time (kept
as epoch seconds, given as a date-time)."""


def arguments_of(
    model: type[BaseModel],
    *,
    inputs: Mapping[type[BaseModel], type] | None = None,
    placed: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """The resolver with ``model``'s fields as arguments besides its own.

    ``inputs``: the GraphQL input type of each nested model; ``placed``: the
    field each of the resolver's own arguments follows (the rest come last)."""
    inputs = inputs or {}
    placed = placed or {}

    def decorate(resolver: F) -> F:
        signature = inspect.signature(resolver)
        own = [p for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY]
        first = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        params = list(first)
        for argument in arguments(model):
            params.append(_parameter(argument, inputs))
            params += [p for p in own if placed.get(p.name) == argument.name]
        params += [p for p in own if p.name not in placed]
        resolver.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p.replace(kind=p.KEYWORD_ONLY) if p in own else p for p in params]
        )
        return resolver

    return decorate


def _parameter(argument: Argument, inputs: Mapping[type[BaseModel], type]) -> inspect.Parameter:
    """One field as a keyword parameter strawberry reads as an argument."""
    shown = graphql_type(argument.annotation, inputs)
    if argument.nullable and not _optional(shown):
        shown = shown | None
    description = argument.described("graphql")
    if description is not None:
        shown = Annotated[shown, strawberry.argument(description=description)]
    default = inspect.Parameter.empty if argument.default is REQUIRED else argument.default
    return inspect.Parameter(
        argument.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=shown
    )


def graphql_type(annotation: Any, inputs: Mapping[type[BaseModel], type]) -> Any:
    """The Python type strawberry shows ``annotation`` (a model field's) as."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin = get_origin(annotation)
    if origin is Annotated:
        return graphql_type(get_args(annotation)[0], inputs)
    if origin in (Union, types.UnionType):
        members = [graphql_type(arg, inputs) for arg in get_args(annotation)]
        return Union[tuple(members)]  # noqa: UP007
    if origin is list:
        (item,) = get_args(annotation)
        return list[graphql_type(item, inputs)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return inputs[annotation]
    if annotation in (str, int, float, bool, datetime, type(None)) or issubclass(annotation, Enum):
        return annotation
    raise TypeError(f"no GraphQL type for {annotation!r}")


def _optional(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)
