"""GraphMem's methods that hand a call to one service, each declared by its
operation in the catalogue and the service call that serves it.

``pin = served(MemoryOperations.pin, lambda gm: partial(gm.memories.set_pinned,
pinned=True))`` is ``GraphMem.pin``: the operation (``graphmem.operations``)
gives the method its signature and docstring, the very ones both clients have,
so mypy types it, ``help`` shows it and the clients cannot drift from it. A
call binds its arguments to that signature with its defaults, resolves
``project_id`` to the facade's project (``None``: the default one) and passes
every argument to the service by name.

mypy checks the service call's result, not the arguments it takes, so the
first facade of each class binds every served call to its service
(``check``): a service parameter renamed under a forward fails when the store
opens, not on the first call that reaches it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from graphmem.operations.entry import Operation
from graphmem.services.wiring import Services

P = ParamSpec("P")
T = TypeVar("T")


class Forward:
    """One served method: the operation's parameters and the service call.

    A call is bound here rather than by ``inspect.Signature.bind``, which is
    several times slower; a call the parameters do not take is bound by
    ``bind`` after all, for Python's own error."""

    def __init__(
        self, name: str, parameters: inspect.Signature, call: Callable[[Any], Callable[..., Any]]
    ) -> None:
        self.name = name
        self.parameters = parameters
        """The operation's signature without ``self``."""
        self.call = call
        """The service method serving it, reached from the facade."""
        given = parameters.parameters.values()
        self._positional = tuple(p.name for p in given if p.kind is p.POSITIONAL_OR_KEYWORD)
        self._names = frozenset(parameters.parameters)
        self._defaults = {p.name: p.default for p in given if p.default is not p.empty}
        self._required = self._names - self._defaults.keys()

    def run(self, gm: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Call the service with every argument by name, the operation's defaults
        for those not given, and ``project_id`` resolved to the facade's project."""
        named = dict(zip(self._positional, args, strict=False))
        arguments = {**self._defaults, **named, **kwargs}
        if (
            len(args) > len(self._positional)
            or not kwargs.keys() <= self._names
            or not named.keys().isdisjoint(kwargs)
            or not self._required <= arguments.keys()
        ):
            self.parameters.bind(*args, **kwargs)
        if "project_id" in arguments:
            arguments["project_id"] = gm._project(arguments["project_id"])
        return self.call(gm)(**arguments)

    def check(self, gm: Services) -> None:
        """Bind this method's parameter names to the service call's signature, as
        ``run`` passes them; a mismatch names the method."""
        target = self.call(gm)
        try:
            inspect.signature(target).bind(**{name: None for name in self._names})
        except TypeError as error:
            raise TypeError(
                f"GraphMem.{self.name}: {target} does not take {self.parameters}: {error}"
            ) from None


def served(
    operation: Operation[P, T], call: Callable[[Services], Callable[..., T]]
) -> Callable[Concatenate[Any, P], T]:
    """The facade method of ``operation``, answered by the service method ``call``
    reaches from the facade."""
    signature = operation.signature
    parameters = list(signature.parameters.values())[1:]
    if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters):
        raise TypeError(f"{operation.entry.name}: a served method passes named parameters only")
    forward = Forward(operation.entry.name, signature.replace(parameters=parameters), call)

    def method(gm: Any, /, *args: Any, **kwargs: Any) -> Any:
        return forward.run(gm, args, kwargs)

    method.__name__ = method.__qualname__ = forward.name
    method.__doc__ = operation.build.__doc__
    method.__signature__ = signature  # type: ignore[attr-defined]
    method.forward = forward  # type: ignore[attr-defined]
    return method


_checked: set[type] = set()


def check(gm: Services) -> None:
    """Bind every served method of ``gm``'s class to its service, once per class."""
    cls = type(gm)
    if cls in _checked:
        return
    for name in dir(cls):
        forward = getattr(getattr(cls, name, None), "forward", None)
        if isinstance(forward, Forward):
            forward.check(gm)
    _checked.add(cls)
