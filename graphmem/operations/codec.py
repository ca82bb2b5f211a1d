"""GraphQL JSON to graphmem's own models and back.

The server shows the domain models field for field, only spelled the GraphQL
way: camelCase names, enum names (``WORKING``) where Python holds values
(``working``) and ISO date-times where Python holds epoch seconds. One
conversion driven by each model's type hints reads every result into the very
classes ``GraphMem`` returns, so the two stay interchangeable.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel

T = TypeVar("T")
P = TypeVar("P", bound=BaseModel)


def camel(name: str) -> str:
    """``session_id`` as GraphQL spells it: ``sessionId``."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def decode(kind: Any, value: Any) -> Any:
    """``value`` (GraphQL JSON) as an instance of ``kind`` (a type hint)."""
    if value is None or kind is Any:
        return value
    origin = get_origin(kind)
    if origin is None:
        return _decode_class(kind, value)
    return _decode_generic(origin, kind, value)


def _decode_generic(origin: Any, kind: Any, value: Any) -> Any:
    """An optional is its one other member (the server sent a value, so not
    ``None``), a list is decoded item by item; any other generic (a ``dict``
    of JSON) is taken as sent."""
    if origin in (Union, types.UnionType):
        (inner, *_) = [arg for arg in get_args(kind) if arg is not type(None)]
        return decode(inner, value)
    if origin is list:
        (item,) = get_args(kind)
        return [decode(item, v) for v in value]
    return value


def _decode_class(kind: Any, value: Any) -> Any:
    """A plain class: an enum by its GraphQL name (or its value), a time
    (``float`` in Python) from ISO text, a model field by field; anything else
    JSON already holds as Python does."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind[value] if value in kind.__members__ else kind(value)
    if kind is float and isinstance(value, str):
        return datetime.fromisoformat(value).timestamp()
    if isinstance(kind, type) and (issubclass(kind, BaseModel) or dataclasses.is_dataclass(kind)):
        return read(kind, value)
    return value


def read(model: type[T], data: Mapping[str, Any]) -> T:
    """One object of GraphQL JSON as ``model``; fields the server did not send keep
    the model's defaults."""
    # Classes hash; typeshed's Hashable protocol does not see that in a type[T].
    hints = _hints(model)  # type: ignore[arg-type]
    fields = {
        name: decode(hint, data[camel(name)]) for name, hint in hints.items() if camel(name) in data
    }
    if issubclass(model, BaseModel):
        return model.model_validate(fields)
    return model(**fields)


def paged(page: type[P], connection: Mapping[str, Any], item: Callable[[Any], Any]) -> P:
    """A GraphQL connection (``edges`` of ``node``s, ``pageInfo``) as the page
    model the service returns, each node read by ``item``."""
    info = connection["pageInfo"]
    return page(
        items=[item(edge["node"]) for edge in connection["edges"]],
        has_next=info["hasNextPage"],
        end_cursor=info["endCursor"],
    )


@functools.cache
def _hints(model: type[Any]) -> dict[str, Any]:
    if issubclass(model, BaseModel):
        return {name: f.annotation for name, f in model.model_fields.items()}
    return {f.name: get_type_hints(model)[f.name] for f in dataclasses.fields(model)}


def encode(value: Any) -> Any:
    """A validated input (a model, an enum, a list of them) as GraphQL variables."""
    if isinstance(value, BaseModel):
        return {camel(name): encode(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value
