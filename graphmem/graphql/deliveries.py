"""Deliveries: what each knowledgeContext answer handed out, read back a page at a time.

One query field, ``deliveries``, answers the record's three questions by its
filter: what a session or agent was given between two times (``sessionId``,
``agentId``, ``since``, ``until``), which deliveries gave a memory
(``memoryId``), and which gave memories since superseded, archived, marked for
review or forgotten (``changed``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

import strawberry
from starlette.concurrency import run_in_threadpool
from strawberry.relay import PageInfo

from graphmem.domain import deliveries
from graphmem.domain.clock import to_datetime
from graphmem.domain.deliveries import decode_position, encode_position
from graphmem.graphql.errors import parse_input
from graphmem.graphql.operations import ProjectId
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory

strawberry.enum(deliveries.Given, description="How a memory given stands now.")


@strawberry.input(description="Which deliveries to list; every field given must match.")
class DeliveryFilter:
    session_id: strawberry.ID | None = strawberry.field(
        default=None, description="Answers to requests naming this session."
    )
    agent_id: strawberry.ID | None = strawberry.field(
        default=None, description="Answers given as this agent."
    )
    memory_id: strawberry.ID | None = strawberry.field(
        default=None, description="Deliveries that gave this memory (forgotten ones too)."
    )
    since: datetime | None = strawberry.field(default=None, description="Inclusive.")
    until: datetime | None = strawberry.field(default=None, description="Exclusive.")
    changed: bool = strawberry.field(
        default=False,
        description="Only deliveries that gave a memory since superseded, archived, marked "
        "for review or forgotten.",
    )


@strawberry.type(description="One memory a delivery gave, and how it stands now.")
class DeliveredMemory:
    rank: int = strawberry.field(description="1 for the first memory of the answer.")
    score: float = strawberry.field(description="Its knowledgeContext score in that answer.")
    memory_id: strawberry.ID | None = strawberry.field(
        description="Null only when state is HIDDEN (a memory the reader may not read)."
    )
    state: deliveries.Given
    memory: Memory | None = strawberry.field(
        description="The memory as it is now; null when FORGOTTEN or HIDDEN."
    )


@strawberry.type(
    description="One knowledgeContext answer on record: when, to whom, for which hint, "
    "and the memories given by rank. An agent reads only its own."
)
class Delivery:
    id: strawberry.ID
    project_id: strawberry.ID
    at: datetime
    agent_id: strawberry.ID | None = strawberry.field(description="Null: asked as no agent.")
    session_id: strawberry.ID | None = strawberry.field(
        description="The session the request named (sessionId)."
    )
    hint: str | None = strawberry.field(
        description="The hint's text, kept only under the setting deliveries.hint: text."
    )
    hint_sha256: str = strawberry.field(description="The hex SHA-256 of the hint's UTF-8 text.")
    memories: list[DeliveredMemory]

    @classmethod
    def of(cls, delivery: deliveries.Delivery) -> Delivery:
        return cls(
            id=strawberry.ID(delivery.id),
            project_id=strawberry.ID(delivery.project_id),
            at=to_datetime(delivery.at) or datetime.min,
            agent_id=strawberry.ID(delivery.agent_id) if delivery.agent_id else None,
            session_id=strawberry.ID(delivery.session_id) if delivery.session_id else None,
            hint=delivery.hint,
            hint_sha256=delivery.hint_sha256,
            memories=[
                DeliveredMemory(
                    rank=given.rank,
                    score=given.score,
                    memory_id=strawberry.ID(given.memory_id) if given.memory_id else None,
                    state=given.state,
                    memory=Memory.of(given.memory) if given.memory else None,
                )
                for given in delivery.memories
            ],
        )


@strawberry.type
class DeliveryEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this delivery.")
    node: Delivery


@strawberry.type(description="A page of deliveries, newest first.")
class DeliveryConnection:
    edges: list[DeliveryEdge]
    page_info: PageInfo


@strawberry.type
class DeliveryQuery:
    @strawberry.field(
        description="What knowledgeContext handed out, newest first: to a session or agent "
        "between two times, the deliveries that gave a memory, or those that gave memories "
        "since changed (filter.changed)."
    )
    async def deliveries(
        self,
        info: Info,
        filter: DeliveryFilter | None = None,
        first: int = 20,
        after: str | None = None,
        project_id: ProjectId = None,
    ) -> DeliveryConnection:
        parsed = (
            None
            if filter is None
            else parse_input(deliveries.DeliveryFilter, dataclasses.asdict(filter), "filter")
        )
        page = await run_in_threadpool(
            info.context.gm.deliveries, parsed, first=first, after=after, project_id=project_id
        )
        edges = [
            DeliveryEdge(cursor=encode_position(d.at, d.id), node=Delivery.of(d))
            for d in page.items
        ]
        page_info = PageInfo(
            has_next_page=page.has_next,
            has_previous_page=after is not None and bool(decode_position(after)),
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=page.end_cursor,
        )
        return DeliveryConnection(edges=edges, page_info=page_info)
