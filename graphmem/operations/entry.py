"""One catalogue entry: an operation as every surface knows it.

An ``Entry`` says who may run an operation (its role, and whether it spans a
whole project or no project at all), which ``GraphMem`` method serves it, which
GraphQL root fields run it, and which of its arguments a policy fills or
checks (``graphmem.operations.access``). GraphQL guards its root fields with
it and the MCP tools call through it.

An ``Operation`` is an entry a remote client sends: declared once, as a
function with ``GraphMem``'s signature that builds the operation's
``Request``, it is a method of ``Client`` (answering with the result) and of
``AsyncClient`` (a coroutine of it), typed for both.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from types import MethodType
from typing import (
    Any,
    ClassVar,
    Concatenate,
    Generic,
    Literal,
    ParamSpec,
    Protocol,
    TypeVar,
    overload,
)

from graphmem.domain.auth import Role
from graphmem.operations.codec import camel
from graphmem.operations.requests import Request

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    name: str
    role: Role
    serves: str | None
    """The ``GraphMem`` method that runs it; ``None`` for what the server answers itself."""
    fields: tuple[str, ...]
    """The GraphQL root fields that run it."""
    whole_project: bool = False
    """It acts on (or reports on) every agent's memories: no key bound to one may run it."""
    cross_project: bool = False
    """It names no project (listing the caller's projects): only the role is checked."""
    attributed: str | None = None
    """The argument naming who made the change it logs: the caller's word, else its key."""
    target: str | None = None
    """The argument naming another project it writes in, where the caller must write too."""
    changes_visibility: bool = False
    """It changes who sees a memory: only the memory's own agent, or an admin key, may."""


class Blocking(Protocol):
    """A client whose methods answer with the result."""

    awaits: ClassVar[Literal[False]]
    project_id: str | None

    def _run(self, request: Request[T]) -> T: ...


class Awaiting(Protocol):
    """A client whose methods are coroutines of the result."""

    awaits: ClassVar[Literal[True]]
    project_id: str | None

    async def _run(self, request: Request[T]) -> T: ...


class Operation(Generic[P, T]):
    """An entry with the request it sends; a method of every class that has ``awaits``."""

    def __init__(self, entry: Entry, build: Callable[P, Request[T]]) -> None:
        self.entry = entry
        self.build = build
        signature = inspect.signature(build)
        project = signature.parameters.get("project_id")
        if project is not None and project.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{entry.name}: project_id must be keyword-only")
        self._scoped = project is not None
        self.signature = _method_signature(signature)
        """The method's signature on ``GraphMem`` and on both clients."""
        self._methods: dict[bool, Callable[..., Any]] = {}

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Request[T]:
        return self.build(*args, **kwargs)

    @overload
    def __get__(self, client: None, owner: type[Blocking]) -> Callable[Concatenate[Any, P], T]: ...
    @overload
    def __get__(
        self, client: None, owner: type[Awaiting]
    ) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, T]]: ...
    @overload
    def __get__(self, client: None, owner: type) -> Operation[P, T]: ...
    @overload
    def __get__(self, client: Blocking, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: Awaiting, owner: type) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, client: Any, owner: type) -> Any:
        awaits = getattr(owner, "awaits", None)
        if awaits is None:
            return self
        method = self._methods.get(awaits)
        if method is None:
            method = self._methods[awaits] = self._method(awaits)
        return method if client is None else MethodType(method, client)

    def _method(self, awaits: bool) -> Callable[..., Any]:
        """The client method: the call in the client's project when it names none."""
        build, scoped = self.build, self._scoped

        def request(client: Any, args: Any, kwargs: dict[str, Any]) -> Request[Any]:
            if scoped and kwargs.get("project_id") is None:
                kwargs["project_id"] = client.project_id
            return build(*args, **kwargs)

        async def awaited(client: Any, /, *args: Any, **kwargs: Any) -> Any:
            return await client._run(request(client, args, kwargs))

        def answered(client: Any, /, *args: Any, **kwargs: Any) -> Any:
            return client._run(request(client, args, kwargs))

        method: Callable[..., Any] = awaited if awaits else answered
        method.__name__ = method.__qualname__ = self.entry.name
        method.__doc__ = build.__doc__
        method.__signature__ = self.signature  # type: ignore[attr-defined]
        return method


def _method_signature(built: inspect.Signature) -> inspect.Signature:
    """``GraphMem``'s signature of the method: ``self`` first, and the result a
    request answers with (``Call[Memory]`` -> ``Memory``)."""
    returned = built.return_annotation
    if not isinstance(returned, str) or not returned.endswith("]"):
        raise TypeError(f"a request type with its result, not {returned!r}")
    self = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return built.replace(
        parameters=[self, *built.parameters.values()],
        return_annotation=returned.partition("[")[2][:-1],
    )


def operation(
    role: Role,
    *fields: str,
    serves: str | None = None,
    whole_project: bool = False,
    cross_project: bool = False,
    attributed: str | None = None,
    target: str | None = None,
    changes_visibility: bool = False,
) -> Callable[[Callable[P, Request[T]]], Operation[P, T]]:
    """Declare the function below as an operation of that name, served by the
    ``GraphMem`` method of that name unless ``serves`` names another, and run
    by the GraphQL field of that name in camelCase unless ``fields`` are given."""

    def declare(build: Callable[P, Request[T]]) -> Operation[P, T]:
        name = build.__name__
        entry = Entry(
            name=name,
            role=role,
            serves=serves or name,
            fields=fields or (camel(name),),
            whole_project=whole_project,
            cross_project=cross_project,
            attributed=attributed,
            target=target,
            changes_visibility=changes_visibility,
        )
        return Operation(entry, build)

    return declare
