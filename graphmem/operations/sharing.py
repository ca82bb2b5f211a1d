"""Operations between the agents of a project, and across projects: who sees a
memory, and copies of it elsewhere."""

from __future__ import annotations

import builtins

from graphmem.domain.auth import Role
from graphmem.domain.checks import check_identifier
from graphmem.domain.models import Memory
from graphmem.domain.projects import SharingEvent
from graphmem.operations import documents as doc
from graphmem.operations.codec import read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


class SharingOperations:
    @operation(Role.WRITE, changes_visibility=True)
    def share(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        """Let every agent of the project see a memory (its own agent, or a caller
        bound to none, may); logged as a sharing event."""
        return doc.memory_mutation("share", memory_id, project_id)

    @operation(Role.WRITE, changes_visibility=True)
    def unshare(memory_id: str, *, project_id: str | None = None) -> Call[Memory]:
        """Make a memory private to the agent that wrote it; logged as a sharing event."""
        return doc.memory_mutation("unshare", memory_id, project_id)

    @operation(Role.WRITE, target="to_project_id")
    def copy_memory(
        memory_id: str, to_project_id: str, *, project_id: str | None = None
    ) -> Call[Memory]:
        """A copy of a memory in another project, naming its source (``GraphMem.copy_memory``)."""
        return doc.memory_call(
            """mutation($id: ID!, $to: ID!, $p: ID) {
              copyMemory(id: $id, toProjectId: $to, projectId: $p) { ...M }
            }""",
            "copyMemory",
            {
                "id": memory_id,
                "to": check_identifier("toProjectId", to_project_id),
                "p": project_id,
            },
        )

    @operation(Role.READ)
    def sharing_events(
        *, memory_id: str | None = None, limit: int = 50, project_id: str | None = None
    ) -> Call[builtins.list[SharingEvent]]:
        """Who shared, unshared or copied which memory, newest first."""
        document = """query($m: ID, $limit: Int!, $p: ID) {
          sharingEvents(memoryId: $m, limit: $limit, projectId: $p) {
            id memoryId kind by fromVisibility toVisibility toProjectId copyId at
          }
        }"""
        variables = {"m": memory_id, "limit": limit, "p": project_id}
        return Call(
            document,
            variables,
            lambda data: [read(SharingEvent, e) for e in data["sharingEvents"]],
        )
