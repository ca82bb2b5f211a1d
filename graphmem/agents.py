"""Agents sharing a project: which agent a call acts as, and what it may see.

A call acts as an agent when it comes through an API key bound to one, or when
a caller not bound to any asks for one agent's view (``GraphMem.as_agent``).
The agent is held in a context variable for the length of the call, and every
store statement receives it as ``$viewer``: each statement that reads or
changes memories keeps a memory only when it is shared, or private to
``$viewer``, or ``$viewer`` is null (a caller bound to no agent sees the whole
project, as before). Setting it in one place, around the call, is what keeps a
read path from forgetting it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar, cast

from graphmem.capsules import FailureReport
from graphmem.errors import ForbiddenError
from graphmem.models import MemoryInput, check_identifier

if TYPE_CHECKING:
    from graphmem.api import GraphMem

VIEWER_PARAM = "viewer"
"""The parameter every statement gets: the acting agent, or null for no agent filter."""

ADMIN = "admin"
"""Who a sharing event names when the caller is bound to no agent."""

_acting: ContextVar[str | None] = ContextVar("graphmem_acting_agent", default=None)


def acting_agent() -> str | None:
    """The agent the current call acts as; ``None``: bound to none (sees everything)."""
    return _acting.get()


@contextmanager
def acting_as(agent_id: str | None) -> Iterator[None]:
    """Act as ``agent_id`` for the length of the block (``None``: change nothing).
    A call already acting as one agent cannot switch to another's view."""
    if agent_id is None:
        yield
        return
    agent = check_identifier("agentId", agent_id)
    current = _acting.get()
    if current is not None and current != agent:
        raise ForbiddenError(f"agentId: this call acts as agent {current!r} only", field="agentId")
    token = _acting.set(agent)
    try:
        yield
    finally:
        _acting.reset(token)


def with_viewer(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """A statement's parameters with the acting agent as ``$viewer``."""
    return {VIEWER_PARAM: _acting.get(), **(params or {})}


Attributed = TypeVar("Attributed", MemoryInput, FailureReport)


def attribute(item: Attributed) -> Attributed:
    """What the acting agent writes (a memory, a failure report) is its: an input
    naming another agent is refused, one naming none is attributed to it."""
    agent = _acting.get()
    if agent is None or item.agent_id == agent:
        return item
    if item.agent_id is not None:
        raise ForbiddenError(
            f"agentId: this call acts as agent {agent!r} and cannot write as {item.agent_id!r}",
            field="agentId",
        )
    return item.model_copy(update={"agent_id": agent})


class AgentView:
    """A GraphMem as one agent sees and acts: each method call runs as that agent.

    What GraphQL, MCP and the client's one-agent view hand their callers in
    place of the GraphMem itself; attributes that are not methods (the clock,
    the default project, the key registry) are the GraphMem's own.
    """

    def __init__(self, gm: GraphMem, agent_id: str) -> None:
        self._gm = gm
        self.agent_id = check_identifier("agentId", agent_id)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._gm, name)
        if name.startswith("_") or not callable(value) or isinstance(value, type):
            return value

        @functools.wraps(value)
        def as_agent(*args: Any, **kwargs: Any) -> Any:
            with acting_as(self.agent_id):
                return value(*args, **kwargs)

        return as_agent

    def as_agent(self, agent_id: str | None) -> GraphMem:
        """The same agent's view; another agent's is refused (an agent sees only its own)."""
        if agent_id is not None and agent_id != self.agent_id:
            raise ForbiddenError(
                f"agentId: this call acts as agent {self.agent_id!r} only", field="agentId"
            )
        return cast("GraphMem", self)
