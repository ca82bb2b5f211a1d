"""A GraphMem as one agent of a project sees it and acts (the acting agent itself
is held in ``graphmem.domain.viewer``).

``gm.as_agent("a")`` is a shallow copy of ``gm`` bound to agent ``a``: the same
services, store and default project, and every public method of the facade runs
acting as ``a`` (its own memories and the shared ones; its writes attributed to
it). What GraphQL, MCP and the client's one-agent view hand their callers in
place of the GraphMem itself. Being a copy of the facade's own class, the view
is typed as the facade: each method keeps its signature, docstring and types.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from types import FunctionType
from typing import Any, Self

from graphmem.domain.checks import check_identifier
from graphmem.domain.errors import ForbiddenError
from graphmem.domain.viewer import acting_as


class AgentScoped:
    """A facade whose public methods act as ``agent_id`` when it is set.

    Each subclass's public functions are wrapped as the class is made, so a
    method added to the facade acts as the view's agent with nothing more.
    """

    agent_id: str | None = None
    """The agent every call acts as; ``None``: the whole project."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if isinstance(value, FunctionType) and not name.startswith("_"):
                setattr(cls, name, _acting(value, cls))

    def as_agent(self, agent_id: str | None) -> Self:
        """This store as one agent sees and acts: its own memories and the shared
        ones, its writes attributed to it. ``None``: as it is (the whole project
        unless it is already one agent's view). An agent's view gives only its
        own agent's view."""
        if agent_id is None:
            return self
        agent = check_identifier("agentId", agent_id)
        if self.agent_id is not None:
            if agent != self.agent_id:
                raise ForbiddenError(
                    f"agentId: this call acts as agent {self.agent_id!r} only", field="agentId"
                )
            return self
        view = copy.copy(self)
        view.agent_id = agent
        return view


def _acting(method: Callable[..., Any], owner: type) -> Callable[..., Any]:
    """``method`` of ``owner``, acting as its facade's agent when the facade has one
    (named as ``owner``'s, also where ``graphmem.api.served`` made it)."""

    @functools.wraps(method)
    def acting(gm: AgentScoped, /, *args: Any, **kwargs: Any) -> Any:
        if gm.agent_id is None:
            return method(gm, *args, **kwargs)
        with acting_as(gm.agent_id):
            return method(gm, *args, **kwargs)

    acting.__module__ = owner.__module__
    acting.__qualname__ = f"{owner.__qualname__}.{method.__name__}"
    return acting
