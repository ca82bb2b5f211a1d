"""Operations on memories, their relations and sessions: the core of the API.

Resolvers stay thin: they shape arguments, call GraphMem off the event loop,
and wrap the results in views.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Annotated

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.relay import PageInfo
from strawberry.utils.str_converters import to_camel_case

from graphmem.domain import checks, kinds, models
from graphmem.domain.cursors import encode_cursor as cursor_of
from graphmem.domain.errors import InvalidInputError
from graphmem.graphql.errors import parse_input
from graphmem.graphql.operations import ProjectId, write
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.inputs import MemoryFilter, MemoryInput, MemoryUpdateInput
from graphmem.graphql.types.memory import Memory, MemoryConnection, MemoryEdge
from graphmem.graphql.types.relations import Relation, RelationEvent
from graphmem.graphql.types.remember import RememberPayload, WriteOutcome
from graphmem.graphql.types.sessions import Session
from graphmem.operations.access import attribution

AS_OF_MEMORY = (
    "The memory as it stood at this past time (its tier, status and supersession then); "
    "null when it was not yet written. At most a few minutes in the future."
)
AS_OF_LIST = (
    "The memories that held at this past time (written by then, validFrom <= asOf < "
    "validTo), with the tiers and statuses they had; empty before the project existed."
)


@strawberry.type
class MemoryQuery:
    @strawberry.field(description="A memory by id; null when the project has no such memory.")
    async def memory(
        self,
        info: Info,
        id: strawberry.ID,
        project_id: ProjectId = None,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF_MEMORY)] = None,
    ) -> Memory | None:
        if as_of is not None:
            (found,) = await run_in_threadpool(
                info.context.gm.get_many, [str(id)], project_id=project_id, as_of=as_of
            )
        else:
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
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF_LIST)] = None,
    ) -> MemoryConnection:
        parsed = (
            parse_input(models.MemoryFilter, dataclasses.asdict(filter), "filter")
            if filter
            else None
        )
        page = await run_in_threadpool(
            info.context.gm.list,
            parsed,
            first=first,
            after=after,
            project_id=project_id,
            as_of=as_of,
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

    @strawberry.field(
        description="Relations removed from or to a memory, newest first, with who and why."
    )
    async def relation_events(
        self, info: Info, memory_id: strawberry.ID, limit: int = 50, project_id: ProjectId = None
    ) -> list[RelationEvent]:
        events = await run_in_threadpool(
            info.context.gm.relation_events, memory_id, limit=limit, project_id=project_id
        )
        return [RelationEvent.of(event) for event in events]

    @strawberry.field(
        description="A session by id; null when the project has no such session, or (for a "
        "key bound to an agent) one holding only what that agent may not read."
    )
    async def session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        found = await info.context.loaders.sessions(project_id).load(id)
        return Session.of(found) if found else None


@strawberry.type
class MemoryMutation:
    @strawberry.mutation(
        description="Record a new memory; a duplicate of a live memory (same normalised "
        "text, or a near match that says the same) is counted into it instead. A near match "
        "that differs by a sign of contradiction (negation, antonym, number, version, date, "
        "identifier, name, unit, swapped roles, a quantifier, modal, direction, person or "
        "tense such as all/some, must/may, up/down, her/his, was/is), or a correction "
        "naming what it replaces (X instead of Y, switched from Y to X, now X (was Y), X, "
        "not Y, no longer Y) is stored as its own memory: superseding the "
        "old one or flagged for review; any other difference keeps both. Events merge only "
        "as the same text at the same time and never supersede or flag; see outcome."
    )
    async def remember(
        self, info: Info, input: MemoryInput, project_id: ProjectId = None
    ) -> RememberPayload | None:
        item = parse_input(models.MemoryInput, dataclasses.asdict(input), "input")
        gm = info.context.gm
        memory, outcome = await write(info, gm.remember_detailed, item, project_id=project_id)
        return RememberPayload.of(memory, outcome)

    @strawberry.mutation(
        description=f"Record up to {checks.MAX_BATCH_SIZE:,} memories (a conversation's turns, "
        "say) in one atomic write: the whole batch is checked first (one bad item writes "
        "nothing and the error names its index and field), and with dedup an item duplicating "
        "a live memory or an earlier item is counted into it, and a near match that differs "
        "supersedes it or is flagged, as remember does. One outcome per item, in order."
    )
    async def remember_many(
        self,
        info: Info,
        input: list[MemoryInput],
        dedup: bool = True,
        project_id: ProjectId = None,
    ) -> list[WriteOutcome]:
        if len(input) > checks.MAX_BATCH_SIZE:
            raise InvalidInputError(
                f"input: at most {checks.MAX_BATCH_SIZE} memories per batch, got {len(input)}",
                field="input",
            )
        items = [
            parse_input(models.MemoryInput, dataclasses.asdict(item), f"input[{n}]")
            for n, item in enumerate(input)
        ]
        gm = info.context.gm
        try:
            outcomes = await write(
                info, gm.remember_many_detailed, items, dedup=dedup, project_id=project_id
            )
        except InvalidInputError as error:
            raise _in_input(error, len(items)) from None
        return [WriteOutcome.of(outcome) for outcome in outcomes]

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
        return Memory.of(await write(info, gm.update, id, changes, project_id=project_id))

    @strawberry.mutation(description="Count one use of a memory; it is rescored.")
    async def record_access(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await write(info, gm.record_access, id, project_id=project_id))

    @strawberry.mutation(description="Rate a memory: 1 useful, 0 neutral, -1 wrong or unhelpful.")
    async def give_feedback(
        self, info: Info, id: strawberry.ID, value: int, project_id: ProjectId = None
    ) -> Memory | None:
        gm = info.context.gm
        return Memory.of(await write(info, gm.feedback, id, value, project_id=project_id))

    @strawberry.mutation(
        description="Pin a memory: a person's confirmation (a candidate becomes active), "
        "and pinned memories are never archived."
    )
    async def pin(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.pin, id, project_id=project_id))

    @strawberry.mutation(description="Unpin a memory; once stale it may be archived again.")
    async def unpin(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Memory | None:
        return Memory.of(await write(info, info.context.gm.unpin, id, project_id=project_id))

    @strawberry.mutation(description="Add (or update) a typed edge from one memory to another.")
    async def relate(
        self,
        info: Info,
        from_id: strawberry.ID,
        to_id: strawberry.ID,
        type: kinds.RelationType,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: ProjectId = None,
    ) -> Relation | None:
        relation = await write(
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

    @strawberry.mutation(
        description="Remove one relation, logged with who removed it (by, else the API key) "
        "and why; returns the edge as it was. Removing a SUPERSEDES edge restores the older "
        "memory, unless another still supersedes it. NOT_FOUND, and nothing written, when "
        "there is no such relation."
    )
    async def unrelate(
        self,
        info: Info,
        from_id: strawberry.ID,
        to_id: strawberry.ID,
        type: kinds.RelationType,
        reason: str,
        by: Annotated[
            str | None,
            strawberry.argument(description="Who removes it; the caller's API key when absent."),
        ] = None,
        project_id: ProjectId = None,
    ) -> Relation | None:
        relation = await write(
            info,
            info.context.gm.unrelate,
            from_id,
            to_id,
            type,
            reason=reason,
            removed_by=attribution(by, info.context.principal, "graphql"),
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
        relation = await write(
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
        await write(info, info.context.gm.forget, id, project_id=project_id)
        return id

    @strawberry.mutation(
        description="Open a session, or reactivate an existing one; a new id when none is given. "
        "CONFLICT for a key bound to an agent when the session holds only what that agent may "
        "not read."
    )
    async def open_session(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        name: str | None = None,
        max_items: Annotated[
            int | None,
            strawberry.argument(
                description="Working-tier size that triggers promotion, then rotation; "
                "null: the server's default."
            ),
        ] = None,
        project_id: ProjectId = None,
    ) -> Session | None:
        session = await write(
            info,
            info.context.gm.open_session,
            id,
            name=name,
            max_items=max_items,
            project_id=project_id,
        )
        return Session.of(session)

    @strawberry.mutation(
        description="Pause a session; its promotion run finishes before the pause does."
    )
    async def pause_session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        gm = info.context.gm
        return Session.of(await write(info, gm.pause_session, id, project_id=project_id))

    @strawberry.mutation(
        description="Close a session after a final promotion run over every pending item."
    )
    async def close_session(
        self, info: Info, id: strawberry.ID, project_id: ProjectId = None
    ) -> Session | None:
        gm = info.context.gm
        return Session.of(await write(info, gm.close_session, id, project_id=project_id))


def _in_input(error: InvalidInputError, count: int) -> InvalidInputError:
    """A batch error as the GraphQL input spells it: ``items[2].occurred_at`` (or
    ``occurred_at`` for a batch of one) becomes ``input[2].occurredAt``."""
    field = error.field or ""
    match = re.fullmatch(r"items\[(\d+)\]\.(\w+)", field)
    if match:
        index, name = match.groups()
    elif count == 1 and re.fullmatch(r"\w+", field):
        index, name = "0", field
    else:
        return error
    renamed = f"input[{index}].{to_camel_case(name)}"
    message = error.message.replace(f"{field}:", f"{renamed}:", 1)
    return InvalidInputError(message, field=renamed)
