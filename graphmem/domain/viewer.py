"""Which agent the current call acts as, and the ``$viewer`` every statement gets.

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

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from graphmem.domain.checks import check_identifier
from graphmem.domain.errors import ForbiddenError

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
