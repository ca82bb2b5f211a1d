"""What one operation sends a graphmem server and how its answers become the result.

No I/O here: ``Client`` sends the calls over HTTP, ``AsyncClient`` awaits the
same ones, and the CLI sends one with rules of its own, so each operation is
written once for all three.
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
U = TypeVar("U")
L = TypeVar("L", bound=list[Any])


class Request(ABC, Generic[T]):
    """The GraphQL calls of one operation, sent in order, and its result from their answers."""

    @abstractmethod
    def parts(self) -> Sequence[Call[Any]]: ...

    @abstractmethod
    def combine(self, answers: Sequence[Any]) -> T:
        """The result, from what each of ``parts`` read from its answer."""

    @abstractmethod
    def named(self, name: str) -> Request[T]:
        """The same request sent as operation ``name``, so the server's logs and
        metrics tell who sent it (the documents here are anonymous operations)."""


@dataclass(frozen=True)
class Call(Request[T]):
    """A GraphQL document, its variables, and how to read its data."""

    document: str
    variables: Mapping[str, Any]
    read: Callable[[dict[str, Any]], T]

    def body(self) -> dict[str, Any]:
        return {"query": self.document, "variables": dict(self.variables)}

    def parts(self) -> Sequence[Call[Any]]:
        return (self,)

    def combine(self, answers: Sequence[Any]) -> T:
        return cast(T, answers[0])

    def named(self, name: str) -> Call[T]:
        kind = re.match(r"\s*(\w+)\s*", self.document)
        if kind is None:
            raise ValueError(f"not a GraphQL operation: {self.document[:40]!r}")
        rest = self.document[kind.end() :]
        space = "" if rest.startswith("(") else " "
        return dataclasses.replace(self, document=f"{kind[1]} {name}{space}{rest}")

    def then(self, shape: Callable[[T], U]) -> Call[U]:
        """The same call, its result passed through ``shape``."""
        read = self.read
        return Call(self.document, self.variables, lambda data: shape(read(data)))


@dataclass(frozen=True)
class Batch(Request[L]):
    """Calls whose lists, joined in order, are one answer: ids asked for in pieces
    small enough for one document each (none for no ids)."""

    calls: Sequence[Call[L]]

    def parts(self) -> Sequence[Call[Any]]:
        return self.calls

    def combine(self, answers: Sequence[Any]) -> L:
        return cast(L, [item for answer in answers for item in answer])

    def named(self, name: str) -> Batch[L]:
        return Batch([call.named(name) for call in self.calls])
