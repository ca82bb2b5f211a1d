"""The GraphQL schema: queries and mutations over the Python API.

Every operation takes an optional ``projectId`` (the tenant boundary; the
server's default project when absent). Resolvers stay thin: they shape
arguments, call GraphMem off the event loop, and wrap the results in views.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

import strawberry
from graphql import GraphQLError
from starlette.concurrency import run_in_threadpool
from strawberry.extensions import ValidationCache
from strawberry.relay import PageInfo
from strawberry.types import ExecutionContext

from graphmem import models
from graphmem.api import encode_cursor as cursor_of
from graphmem.graphql.errors import ClientErrors, parse_input, should_log
from graphmem.graphql.types import (
    Info,
    Memory,
    MemoryConnection,
    MemoryEdge,
    MemoryFilter,
    MemoryInput,
    MemoryUpdateInput,
    Relation,
    Session,
)

P = ParamSpec("P")
T = TypeVar("T")

ProjectId = Annotated[
    strawberry.ID | None,
    strawberry.argument(
        description="The tenant to act in; the server's default project when absent."
    ),
]


async def _write(info: Info, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a GraphMem write in a worker thread, then drop this request's cached
    reads: a later field of the same document must see what the write changed."""
    try:
        return await run_in_threadpool(call, *args, **kwargs)
    finally:
        info.context.loaders.forget_cached()


@strawberry.type
class Query:
    @strawberry.field(description="A memory by id; null when the project has no such memory.")
    async def memory(
        self,
        info: Info,
        id: strawberry.ID,
        project_id: ProjectId = None,
    ) -> Memory | None:
        found = await info.context.loaders.memories(project_id).load(id)
        return Memory.of(found) if found else None

    @strawberry.field(description="Memories, newest first, a page at a time.")
    async def memories(
        self,
        info: Info,
        filter: MemoryFilter | None = None,
        first: int = 20,
        after: str | None = None,
        project_id: ProjectId = None,
    ) -> MemoryConnection:
        parsed = (
            parse_input(models.MemoryFilter, dataclasses.asdict(filter), "filter")
            if filter
            else None
        )
        page = await run_in_threadpool(
            info.context.gm.list, parsed, first=first, after=after, project_id=project_id
        )
        return MemoryConnection(
            edges=[MemoryEdge(cursor=cursor_of(m), node=Memory.of(m)) for m in page.items],
            page_info=PageInfo(
                has_next_page=page.has_next,
                # Pages only go forwards: a page reached through a cursor has one before it.
                has_previous_page=bool(after),
                start_cursor=page.start_cursor,
                end_cursor=page.end_cursor,
            ),
        )

    @strawberry.field(description="A session by id; null when the project has no such session.")
    async def session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        found = await info.context.loaders.sessions(project_id).load(id)
        return Session.of(found) if found else None


@strawberry.type
class Mutation:
    """Each result is null only when its mutation failed (the error says why), so
    one failure does not hide the results of the other mutations in a document."""

    @strawberry.mutation(description="Record a new memory.")
    async def remember(
        self, info: Info, input: MemoryInput, project_id: ProjectId = None
    ) -> Memory | None:
        item = parse_input(models.MemoryInput, dataclasses.asdict(input), "input")
        return Memory.of(await _write(info, info.context.gm.remember, item, project_id=project_id))

    @strawberry.mutation(description="Change some fields of a memory; it is rescored.")
    async def update_memory(
        self,
        info: Info,
        id: strawberry.ID,
        input: MemoryUpdateInput,
        project_id: ProjectId = None,
    ) -> Memory | None:
        changes = parse_input(models.MemoryUpdate, dataclasses.asdict(input), "input")
        gm = info.context.gm
        return Memory.of(await _write(info, gm.update, id, changes, project_id=project_id))

    @strawberry.mutation(description="Count one use of a memory; it is rescored.")
    async def record_access(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await _write(info, gm.record_access, id, project_id=project_id))

    @strawberry.mutation(description="Rate a memory: 1 useful, 0 neutral, -1 wrong or unhelpful.")
    async def give_feedback(
        self, info: Info, id: strawberry.ID, value: int, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await _write(info, gm.feedback, id, value, project_id=project_id))

    @strawberry.mutation(
        description="Pin a memory: a person's confirmation (a candidate becomes active), "
        "and pinned memories are never archived."
    )
    async def pin(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await _write(info, info.context.gm.pin, id, project_id=project_id))

    @strawberry.mutation(description="Unpin a memory; once stale it may be archived again.")
    async def unpin(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await _write(info, info.context.gm.unpin, id, project_id=project_id))

    @strawberry.mutation(description="Add (or update) a typed edge from one memory to another.")
    async def relate(
        self,
        info: Info,
        from_id: strawberry.ID,
        to_id: strawberry.ID,
        type: models.RelationType,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: ProjectId = None,
    ) -> Relation | None:
        relation = await _write(
            info,
            info.context.gm.relate,
            from_id,
            to_id,
            type,
            rationale=rationale,
            weight=weight,
            project_id=project_id,
        )
        return Relation.of(relation)

    @strawberry.mutation(description="Mark newId as replacing oldId; the old memory is kept.")
    async def supersede(
        self,
        info: Info,
        old_id: strawberry.ID,
        new_id: strawberry.ID,
        rationale: str | None = None,
        project_id: ProjectId = None,
    ) -> Relation | None:
        relation = await _write(
            info,
            info.context.gm.supersede,
            old_id,
            new_id,
            rationale=rationale,
            project_id=project_id,
        )
        return Relation.of(relation)

    @strawberry.mutation(
        description="Delete a memory and its edges for good; returns its id. "
        "Nothing else deletes: stale memories are archived."
    )
    async def forget(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> strawberry.ID | None:
        await _write(info, info.context.gm.forget, id, project_id=project_id)
        return id

    @strawberry.mutation(
        description="Open a session, or reactivate an existing one; a new id when none is given."
    )
    async def open_session(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        name: str | None = None,
        project_id: ProjectId = None,
    ) -> Session | None:
        gm = info.context.gm
        return Session.of(await _write(info, gm.open_session, id, name=name, project_id=project_id))

    @strawberry.mutation(description="Pause a session.")
    async def pause_session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        gm = info.context.gm
        return Session.of(await _write(info, gm.pause_session, id, project_id=project_id))

    @strawberry.mutation(description="Close a session.")
    async def close_session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        gm = info.context.gm
        return Session.of(await _write(info, gm.close_session, id, project_id=project_id))


class GraphMemSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log only what an operator must see; client mistakes would drown it out."""
        super().process_errors([e for e in errors if should_log(e)], execution_context)


# Agents send the same few documents over and over; validating each text once
# keeps memory(id) at a few milliseconds. (Parse caching is left out: its parse
# errors would skip the error handling of ClientErrors.)
schema = GraphMemSchema(query=Query, mutation=Mutation, extensions=[ClientErrors, ValidationCache])


def export_sdl() -> str:
    """The schema as SDL, the text of ``schema.graphql``."""
    return schema.as_str() + "\n"


if __name__ == "__main__":
    print(export_sdl(), end="")
