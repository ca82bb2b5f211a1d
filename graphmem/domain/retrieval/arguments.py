"""The retrieval requests' fields as every surface offers them, read from the models.

A request model (``ContextRequest``, ``SearchRequest``) is the one declaration of
its arguments: name, type, limits, default and description. GraphQL builds its
arguments from it, the remote client its document and variables, MCP its tool
parameters and the CLI the options it does not spell its own way, all through
``arguments``; so a new optional field is offered on each surface by declaring
it on the model alone.

A surface that words a field its own way (an agent is told "you", GraphQL
leaves some self-evident arguments bare) says so in a ``Said`` beside the
field, where the other wordings are in sight.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, get_args

from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

from graphmem.domain.checks import Epoch, Identifier

AS_OF_HELP = (
    "Answer as the store stood at this past time: the memories that held then (written "
    "by then, validFrom <= asOf < validTo), with the tiers and statuses they had; empty "
    "before the project existed, INVALID_INPUT more than a few minutes in the future."
)
"""``asOf`` on GraphQL, where each request adds what it means for it."""
STOOD_AT = (
    "Answer as the store stood at this past time (ISO 8601): the memories that held then, "
    "with the tiers and statuses they had."
)
"""``as_of`` to an agent, on every tool that takes it (``graphmem.mcp.vocabulary``)."""
LESS_CERTAIN = "Leave out memories less certain than this."
HAPPENED_AFTER = "Only what happened at or after this time (ISO 8601)."
HAPPENED_BEFORE = "Only what happened before this time (ISO 8601)."
"""How the tools word the filters both requests take, in one wording."""


ALIASES = (Identifier, Epoch)
"""Types the surfaces show as a kind of their own: an id, a time."""


class Own(Enum):
    """The field's own description, for a surface that words it no other way."""

    DESCRIPTION = "description"


OWN = Own.DESCRIPTION


@dataclass(frozen=True)
class Said:
    """How a field is described where a surface words it differently from the
    model's ``description``; ``None``: the surface shows no description."""

    graphql: str | Own | None = OWN
    mcp: str | Own | None = OWN


@dataclass(frozen=True)
class Argument:
    """One field of a request model, as the surfaces offer it."""

    name: str
    """The Python (and MCP, CLI) name."""
    info: FieldInfo

    @property
    def annotation(self) -> Any:
        """The field's type as declared: an id or a time kept whole even where
        pydantic took it apart into a plain type and its checks."""
        for alias in ALIASES:
            base, *checks = get_args(alias)
            if self.info.annotation is base and all(c in self.info.metadata for c in checks):
                return alias
        return self.info.annotation

    @property
    def camel(self) -> str:
        """The GraphQL (and LLM tool) name."""
        return to_camel(self.name)

    @property
    def nullable(self) -> bool:
        """A surface may leave it out as null: it has a default, and null is that
        default or stands for it (a request turns null into a default built
        afresh, such as a list)."""
        return not self.info.is_required() and (
            self.info.default is None or self.info.default_factory is not None
        )

    @property
    def default(self) -> Any:
        """What a surface shows as the default: the model's own, null for one built
        afresh, none (``REQUIRED``) for a field a call must give."""
        if self.info.is_required():
            return REQUIRED
        if self.info.default_factory is not None:
            return None
        return self.info.default

    def described(self, surface: Literal["graphql", "mcp"]) -> str | None:
        """The description ``surface`` shows."""
        said = next((m for m in self.info.metadata if isinstance(m, Said)), Said())
        wording = said.graphql if surface == "graphql" else said.mcp
        return self.info.description if wording is OWN else wording


class _Required(Enum):
    REQUIRED = "required"


REQUIRED = _Required.REQUIRED
"""The default of an argument a call must give."""


def arguments(model: type[BaseModel]) -> Iterator[Argument]:
    """The model's fields, in the order they are declared (and offered)."""
    for name, info in model.model_fields.items():
        yield Argument(name, info)
