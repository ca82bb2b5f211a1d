"""Sharing memories between the agents of a project, and copying them across
projects: who may change who sees a memory, and the log of every change.

A memory is ``private`` to the agent that wrote it or ``shared`` with the
project. Only that agent, or a caller bound to no agent, may share or unshare
it; each change is logged as a ``SharingEvent``. A copy to another project is a
new memory there that names its source (``copied_from``); the source is never
moved or changed.

What an agent writes (a memory, a failure report) is its own, and who sees it
is decided here too (``attributed``), once for every path that writes; so is
where it may write: a session the agent cannot see (``hidden_sessions``) is one
that does not exist for it, and a write naming it is ``NotFoundError``, as
steering it is, so the write can neither reach another agent's work nor make
that session (its name, its runs) visible to the writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from graphmem.domain import textscope
from graphmem.domain.capsules import FailureReport
from graphmem.domain.checks import check_between
from graphmem.domain.errors import ForbiddenError, InvalidInputError, NotFoundError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import Visibility
from graphmem.domain.models import Memory, MemoryInput
from graphmem.domain.projects import SharingEvent
from graphmem.domain.viewer import ADMIN, acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.events import ChangeKind
from graphmem.services.memories import Memories, missing
from graphmem.services.projects import Projects
from graphmem.services.promotion import missing_session
from graphmem.store.queries import sessions, sharing

MAX_EVENTS = 200

Attributed = TypeVar("Attributed", MemoryInput, FailureReport)


class Sharing(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        memories: Memories,
        projects: Projects,
        default_visibility: Visibility,
    ) -> None:
        super().__init__(basics)
        self.memories = memories
        self.projects = projects
        self._default = default_visibility

    def default_visibility(self, project_id: str) -> Visibility:
        """Who sees a project's new memories when the writer does not say: the one
        place that decides it. The project's own setting, else the server's."""
        own = self.projects.settings(project_id=project_id).default_visibility
        return own or self._default

    def attributed(self, items: Sequence[Attributed], project_id: str) -> list[Attributed]:
        """Each item (a memory to write, a failure report) as the acting agent
        writes it: its agent is the acting one, and it is seen as it says, else
        as the project's default when it has an agent, else by everyone (a
        private item without an agent has no one to be private to). The default
        is read only for a batch that needs it: most writes have no agent."""
        attributed = [_as_acting_agent(item) for item in items]
        self._check_sessions(attributed, project_id)
        needs_default = any(i.agent_id is not None and i.visibility is None for i in attributed)
        default = self.default_visibility(project_id) if needs_default else None
        ready = []
        for index, item in enumerate(attributed):
            if item.agent_id is None and item.visibility is Visibility.PRIVATE:
                field = "visibility" if len(items) == 1 else f"items[{index}].visibility"
                what = "a failure report" if isinstance(item, FailureReport) else "a memory"
                raise InvalidInputError(
                    f"{field}: {what} without an agent is always shared; give its agentId",
                    field=field,
                )
            if item.visibility is None:
                visibility = default if item.agent_id is not None else Visibility.SHARED
                item = item.model_copy(update={"visibility": visibility})
            ready.append(item)
        return ready

    def _check_sessions(self, items: Sequence[Attributed], project_id: str) -> None:
        """Refuse a write naming a session the acting agent cannot see, with the
        words an unknown session gets when it is steered: it holds only other
        agents' private work. Writes naming no session go to the project's
        default one, which every agent writes in."""
        named = {item.session_id for item in items if item.session_id is not None}
        if acting_agent() is None or not named:
            return
        hidden = sessions.hidden(self.store, sorted(named), project_id)
        for index, item in enumerate(items):
            if item.session_id is not None and item.session_id in hidden:
                error = missing_session(item.session_id, project_id)
                if len(items) == 1:
                    raise error
                field = f"items[{index}].session_id"
                raise NotFoundError(f"items[{index}].{error.message}", field=field)

    def set_visibility(self, memory_id: str, to: Visibility, *, project_id: str) -> Memory:
        """Share or unshare one memory; a memory already so is returned unchanged
        and nothing is logged."""
        memory = self.memories.get(memory_id, project_id=project_id)
        agent = acting_agent()
        if memory.agent_id is None:
            if to is Visibility.SHARED:
                return memory
            raise InvalidInputError(
                "id: a memory without an agent is always shared; it has no one to be private to",
                field="id",
            )
        if agent is not None and agent != memory.agent_id:
            raise ForbiddenError(
                f"id: only agent {memory.agent_id!r} (or a key bound to no agent) may change "
                "who sees this memory",
                field="id",
            )
        if memory.visibility is to:
            return memory
        changed = sharing.set_visibility(
            self.store,
            memory_id,
            to,
            text_scope=textscope.text_scope(project_id, memory.agent_id, to.value),
            by=agent or ADMIN,
            event_id=new_id(),
            project_id=project_id,
            now=self._now(),
        )
        if changed is None:  # changed meanwhile by a concurrent call: it stands as that left it
            return self.memories.get(memory_id, project_id=project_id)
        self._changed(ChangeKind.UPDATED, [memory_id], project_id)
        return self.memories.readable(changed)

    def copy(self, memory_id: str, to_project_id: str, *, project_id: str) -> Memory:
        """A new memory in ``to_project_id`` copying one of ``project_id``."""
        if to_project_id == project_id:
            raise InvalidInputError(
                "toProjectId: must name another project than the memory's own",
                field="toProjectId",
            )
        source = self.memories.get(memory_id, project_id=project_id)
        copy_id = new_id()
        copy = sharing.copy(
            self.store,
            memory_id,
            to_project_id,
            shared_scope=textscope.text_scope(to_project_id, None, None),
            private_scope=textscope.text_scope(
                to_project_id, source.agent_id, Visibility.PRIVATE.value
            ),
            copy_id=copy_id,
            by=acting_agent() or ADMIN,
            event_id=new_id(),
            project_id=project_id,
            now=self._now(),
        )
        if copy is None:
            raise missing(memory_id, project_id)
        self._changed(ChangeKind.CREATED, [copy_id], to_project_id)
        return self.memories.readable(copy)

    def events(
        self, *, memory_id: str | None = None, limit: int = 50, project_id: str
    ) -> list[SharingEvent]:
        """Shares, unshares and copies, newest first (of one memory, or the project's)."""
        check_between("limit", limit, 1, MAX_EVENTS)
        return sharing.events(self.store, memory_id=memory_id, limit=limit, project_id=project_id)


def _as_acting_agent(item: Attributed) -> Attributed:
    """What the acting agent writes is its own: an item naming another agent is
    refused, one naming none is attributed to it."""
    agent = acting_agent()
    if agent is None or item.agent_id == agent:
        return item
    if item.agent_id is not None:
        raise ForbiddenError(
            f"agentId: this call acts as agent {agent!r} and cannot write as {item.agent_id!r}",
            field="agentId",
        )
    return item.model_copy(update={"agent_id": agent})
