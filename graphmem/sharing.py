"""Sharing memories between the agents of a project, and copying them across
projects: who may change who sees a memory, and the log of every change.

A memory is ``private`` to the agent that wrote it or ``shared`` with the
project. Only that agent, or a caller bound to no agent, may share or unshare
it; each change is logged as a ``SharingEvent``. A copy to another project is a
new memory there that names its source (``copied_from``); the source is never
moved or changed.
"""

from __future__ import annotations

from typing import Any

from graphmem import textscope
from graphmem.agents import ADMIN, acting_agent
from graphmem.errors import ForbiddenError, InvalidInputError
from graphmem.events import ChangeKind
from graphmem.ids import new_id
from graphmem.memories import Memories, memory_of, missing
from graphmem.models import Memory, SharingEvent, Visibility
from graphmem.projects import Projects
from graphmem.service import Service

MAX_EVENTS = 200


class Sharing(Service):
    def __init__(
        self,
        *args: Any,
        memories: Memories,
        projects: Projects,
        default_visibility: Visibility,
        **services: Any,
    ) -> None:
        super().__init__(*args, **services)
        self.memories = memories
        self.projects = projects
        self._default = default_visibility

    def default_visibility(self, project_id: str) -> Visibility:
        """Who sees a project's new memories when the writer does not say: the one
        place that decides it. The project's own setting, else the server's."""
        own = self.projects.settings(project_id=project_id).default_visibility
        return own or self._default

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
        rows = self.store.write(
            "set_visibility",
            {
                "id": memory_id,
                "project_id": project_id,
                "to": to.value,
                "text_scope": textscope.text_scope(project_id, memory.agent_id, to.value),
                "kind": "shared" if to is Visibility.SHARED else "unshared",
                "by": agent or ADMIN,
                "event_id": new_id(),
                "now": self._now(),
            },
        )
        if not rows:  # changed meanwhile by a concurrent call: it stands as that left it
            return self.memories.get(memory_id, project_id=project_id)
        self._changed(ChangeKind.UPDATED, [memory_id], project_id)
        return memory_of(rows[0])

    def copy(self, memory_id: str, to_project_id: str, *, project_id: str) -> Memory:
        """A new memory in ``to_project_id`` copying one of ``project_id``."""
        if to_project_id == project_id:
            raise InvalidInputError(
                "toProjectId: must name another project than the memory's own",
                field="toProjectId",
            )
        source = self.memories.get(memory_id, project_id=project_id)
        copy_id = new_id()
        rows = self.store.write(
            "copy_memory",
            {
                "id": memory_id,
                "project_id": project_id,
                "to_project_id": to_project_id,
                "shared_scope": textscope.text_scope(to_project_id, None, None),
                "private_scope": textscope.text_scope(
                    to_project_id, source.agent_id, Visibility.PRIVATE.value
                ),
                "copy_id": copy_id,
                "by": acting_agent() or ADMIN,
                "event_id": new_id(),
                "now": self._now(),
            },
        )
        if not rows:
            raise missing(memory_id, project_id)
        self._changed(ChangeKind.CREATED, [copy_id], to_project_id)
        return memory_of(rows[0])

    def events(
        self, *, memory_id: str | None = None, limit: int = 50, project_id: str
    ) -> list[SharingEvent]:
        """Shares, unshares and copies, newest first (of one memory, or the project's)."""
        if type(limit) is not int or not 1 <= limit <= MAX_EVENTS:
            raise InvalidInputError(f"limit: must be between 1 and {MAX_EVENTS}", field="limit")
        rows = self.store.read(
            "sharing_events", {"project_id": project_id, "memory_id": memory_id, "limit": limit}
        )
        return [
            SharingEvent.model_validate({k: v for k, v in row["event"].items() if v is not None})
            for row in rows
        ]
