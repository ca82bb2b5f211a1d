"""A GraphMem as one agent of a project sees it and acts (the acting agent itself
is held in ``graphmem.domain.viewer``)."""

from __future__ import annotations

import functools
from typing import Any, Self

from graphmem.domain.checks import check_identifier
from graphmem.domain.errors import ForbiddenError
from graphmem.domain.viewer import acting_as


class AgentView:
    """A GraphMem as one agent sees and acts: each method call runs as that agent.

    What GraphQL, MCP and the client's one-agent view hand their callers in
    place of the GraphMem itself; attributes that are not methods (the clock,
    the default project, the key registry) are the GraphMem's own. It wraps any
    object, so it knows nothing of GraphMem: ``GraphMem.as_agent`` gives it the
    GraphMem's type.
    """

    def __init__(self, gm: object, agent_id: str) -> None:
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

    def as_agent(self, agent_id: str | None) -> Self:
        """The same agent's view; another agent's is refused (an agent sees only its own)."""
        if agent_id is not None and agent_id != self.agent_id:
            raise ForbiddenError(
                f"agentId: this call acts as agent {self.agent_id!r} only", field="agentId"
            )
        return self
