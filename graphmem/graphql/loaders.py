"""Per-request DataLoaders, so a page of memories costs one store read per field.

Loaders are made per request (their caches must not outlive it) and per
project (the tenant boundary is part of every read). Batch functions run the
blocking GraphMem calls in a worker thread so the event loop keeps serving.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from strawberry.dataloader import DataLoader
from strawberry.extensions import SchemaExtension

from graphmem.api import GraphMem
from graphmem.domain.auth import OPEN, Principal
from graphmem.domain.models import Memory
from graphmem.domain.relations import Relation
from graphmem.domain.sessions import Session

V = TypeVar("V")
Fetch = Callable[..., list[V]]
"""A DataLoader-shaped GraphMem read: ``fetch(ids, project_id=...)``, one result per id."""


class Loaders:
    def __init__(self, gm: GraphMem) -> None:
        self.gm = gm
        """The store API these loaders read through (the request's view of it)."""
        self._memories: dict[str, DataLoader[str, Memory | None]] = {}
        self._relations: dict[str, DataLoader[str, list[Relation]]] = {}
        self._sessions: dict[str, DataLoader[str, Session | None]] = {}
        self._views: dict[str, Loaders] = {}

    def view(self, agent_id: str | None) -> Loaders:
        """These loaders as one agent sees: what a root field that asked for an
        agent's view (``agentId``) returns reads that view all the way down its
        nested fields (relations, sessions, logs, memories reached from it).
        ``None``: these loaders, the request's own view."""
        if agent_id is None:
            return self
        view = self._views.get(agent_id)
        if view is None:
            view = self._views[agent_id] = Loaders(self.gm.as_agent(agent_id))
        return view

    def memories(self, project_id: str | None) -> DataLoader[str, Memory | None]:
        return self._loader(self._memories, project_id, self.gm.get_many)

    def relations(self, project_id: str | None) -> DataLoader[str, list[Relation]]:
        return self._loader(self._relations, project_id, self.gm.relations)

    def sessions(self, project_id: str | None) -> DataLoader[str, Session | None]:
        return self._loader(self._sessions, project_id, self.gm.get_sessions)

    def forget_cached(self) -> None:
        """Drop what was read so far: called after each write, which may have changed it."""
        for loaders in (self._memories, self._relations, self._sessions):
            for loader in loaders.values():
                loader.clear_all()
        for view in self._views.values():
            view.forget_cached()

    def _loader(
        self, loaders: dict[str, DataLoader[str, Any]], project_id: str | None, fetch: Fetch[V]
    ) -> DataLoader[str, V]:
        project = self.gm.default_project if project_id is None else project_id
        loader = loaders.get(project)
        if loader is None:

            async def batch(ids: list[str]) -> Sequence[V]:
                return await run_in_threadpool(fetch, ids, project_id=project)

            loader = loaders[project] = DataLoader(load_fn=batch)
        return loader


@dataclass
class Context:
    """What every resolver sees: the store API, who is calling and this
    request's loaders."""

    gm: GraphMem
    principal: Principal = OPEN
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        self.act_as_principal()

    def act_as_principal(self) -> None:
        """Every call of this request acts as the key's agent, if it is bound to
        one: it sees that agent's memories and the shared ones, no others."""
        self.gm = self.gm.as_agent(self.principal.agent_id)
        self.loaders = Loaders(self.gm)


class FreshReads(SchemaExtension):
    """Each operation starts with empty loaders: a websocket connection keeps one
    context for all its operations, and must not answer a later query from what
    an earlier one read."""

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context.context
        if isinstance(context, Context):
            context.loaders.forget_cached()
        yield
