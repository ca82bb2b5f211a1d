"""Agents sharing a project: share, unshare, copy to another project, and the log.

A request whose key is bound to an agent acts as that agent everywhere (the
context's GraphMem is that agent's view, see ``graphmem.api.agents``); these
operations add what only sharing needs: who may change who sees a memory, and
whether the caller may write in the project a copy goes to (both decided in
``graphmem.operations.access``).
"""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory
from graphmem.graphql.types.sharing import SharingEvent


@strawberry.type
class SharingQuery:
    @strawberry.field(
        description="Who shared, unshared or copied which memory (one memory's, or the "
        "project's), newest first."
    )
    async def sharing_events(
        self,
        info: Info,
        memory_id: strawberry.ID | None = None,
        limit: int = 50,
        project_id: ProjectId = None,
    ) -> list[SharingEvent]:
        events = await run_in_threadpool(
            info.context.gm.sharing_events, memory_id=memory_id, limit=limit, project_id=project_id
        )
        return [SharingEvent.of(event) for event in events]


@strawberry.type
class SharingMutation:
    @strawberry.mutation(
        description="Let every agent of the project see a memory; logged. Its own agent or "
        "an admin key may."
    )
    async def share(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.share, id, project_id=project_id))

    @strawberry.mutation(
        description="Make a memory private to the agent that wrote it; logged. Its own agent "
        "or an admin key may; a memory without an agent is always shared."
    )
    async def unshare(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.unshare, id, project_id=project_id))

    @strawberry.mutation(
        description="Copy a memory into another project, where the copy names its source "
        "(copiedFrom); the source is never moved or changed. The key needs write access "
        "to both projects; logged."
    )
    async def copy_memory(
        self,
        info: Info,
        id: strawberry.ID,
        to_project_id: strawberry.ID,
        project_id: ProjectId = None,
    ) -> Memory | None:
        # Whether the key may write in toProjectId is checked with the project (tenancy).
        gm = info.context.gm
        memory = await write(info, gm.copy_memory, id, to_project_id, project_id=project_id)
        return Memory.of(memory)
