"""Subscriptions: what happens to a project's memories, pushed over a websocket
(the ``graphql-transport-ws`` protocol on ``/graphql``).

Events come from the GraphMem's event bus (``graphmem.services.events``), so they report
writes made through any surface of this process. Each subscription checks its
project against the connection's principal before it starts, so a refusal is
an ``error`` message for that subscription, not a dropped socket. The memory
an event is about is read when the event is sent, through loaders of the
event's own: the connection lives for hours and its cached reads would go stale.

Its key may be revoked meanwhile, so every
operation it starts reads the key again (``graphmem.graphql.app``), and a
running subscription checks it before each event, trusting a check made in the
last ``graphmem.services.keys.RECHECK_EVERY_S`` seconds so an event costs no store read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

import strawberry
from pydantic import TypeAdapter, ValidationError
from starlette.concurrency import run_in_threadpool
from strawberry.exceptions import ConnectionRejectionError

from graphmem.api import GraphMem
from graphmem.domain import kinds
from graphmem.domain.auth import Principal, Role
from graphmem.domain.checks import Identifier
from graphmem.domain.clock import as_datetime
from graphmem.domain.errors import InvalidInputError, UnauthenticatedError
from graphmem.graphql.loaders import Context, Loaders
from graphmem.graphql.operations import ProjectId
from graphmem.graphql.types.common import Info
from graphmem.graphql.types.memory import Memory
from graphmem.server.gate import bearer_token
from graphmem.services import events
from graphmem.services.keys import ApiKeys

strawberry.enum(
    events.ChangeKind, name="MemoryChangeKind", description="What happened to a memory."
)


@strawberry.type(description="Something that happened to one memory.")
class MemoryEvent:
    loaders: strawberry.Private[Loaders]
    memory_id: strawberry.ID
    project_id: strawberry.ID
    kind: events.ChangeKind
    at: datetime
    from_tier: kinds.Tier | None = strawberry.field(description="The tier a promotion left.")
    to_tier: kinds.Tier | None = strawberry.field(description="The tier a promotion moved it to.")
    missed: int = strawberry.field(
        description="Events this subscription lost just before this one because its client "
        "read too slowly; 0 normally."
    )

    @classmethod
    def of(cls, event: events.MemoryEvent, gm: GraphMem) -> MemoryEvent:
        return cls(
            loaders=Loaders(gm),
            memory_id=strawberry.ID(event.memory_id),
            project_id=strawberry.ID(event.project_id),
            kind=event.kind,
            at=as_datetime(event.at),
            from_tier=event.from_tier,
            to_tier=event.to_tier,
            missed=event.missed,
        )

    @strawberry.field(description="The memory as it is now; null once it has been forgotten.")
    async def memory(self) -> Memory | None:
        found = await self.loaders.memories(self.project_id).load(self.memory_id)
        return Memory.of(found) if found else None


_identifier = TypeAdapter(Identifier)


def _is_identifier(value: str) -> bool:
    try:
        _identifier.validate_python(value)
    except ValidationError:
        return False
    return True


async def _stream(
    info: Info, topic: events.Topic, project_id: str | None
) -> AsyncIterator[MemoryEvent]:
    """Check the project now, so a refusal fails the subscription before it starts."""
    gm = info.context.gm
    if project_id is not None and not _is_identifier(project_id):
        raise InvalidInputError(
            "project_id: must be 1-128 characters of letters, digits and . _ : @ -",
            field="project_id",
        )
    context = info.context
    project = context.principal.project_for(project_id, gm.default_project, Role.READ)
    agent = context.principal.agent_id

    async def stream() -> AsyncIterator[MemoryEvent]:
        # Subscribed when iteration starts: a stream that never starts holds nothing.
        with gm.events.subscribe(topic, project) as subscription:
            async for event in subscription:
                if isinstance(context, ConnectionContext):
                    # A revoked key ends the subscription (UNAUTHENTICATED) before
                    # anything of the event is sent.
                    await context.check_key(fresh=False)
                if agent is not None and not await _sees(gm, event):
                    continue
                yield MemoryEvent.of(event, gm)

    return stream()


async def _sees(gm: GraphMem, event: events.MemoryEvent) -> bool:
    """Whether a key bound to an agent may hear of this memory: it is shared or the
    agent's own (a forgotten memory can no longer say, so it is not told)."""
    (memory,) = await run_in_threadpool(gm.get_many, [event.memory_id], project_id=event.project_id)
    return memory is not None


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Memories of the project as they move to a longer-lived tier."
    )
    async def memory_promoted(
        self, info: Info, project_id: ProjectId = None
    ) -> AsyncIterator[MemoryEvent]:
        return await _stream(info, events.Topic.PROMOTED, project_id)

    @strawberry.subscription(
        description="Every change to a memory of the project: created, merged, updated, "
        "feedback, pinned, related, activated, promoted, forgotten."
    )
    async def memory_changed(
        self, info: Info, project_id: ProjectId = None
    ) -> AsyncIterator[MemoryEvent]:
        return await _stream(info, events.Topic.CHANGED, project_id)

    @strawberry.subscription(
        description="New candidates of the project (auto-extracted memories awaiting review)."
    )
    async def candidate_added(
        self, info: Info, project_id: ProjectId = None
    ) -> AsyncIterator[MemoryEvent]:
        return await _stream(info, events.Topic.CANDIDATE_ADDED, project_id)


NO_ACCESS = Principal(projects=frozenset(), role=Role.READ)
"""A websocket's principal until its ``connection_init`` settles who it is."""


@dataclass
class ConnectionContext(Context):
    """The context of one websocket connection, shared by all its operations."""

    principal: Principal = NO_ACCESS
    upgrade_principal: Principal | None = None
    """Who the upgrade request's headers named (the open principal when no key is
    needed); ``None`` when the key must come in ``connection_init``."""
    upgrade_token: str | None = field(default=None, repr=False)
    """The key of the upgrade request's ``Authorization`` header, if it had one."""
    connection_params: dict[str, object] | None = None
    """The ``connection_init`` payload (strawberry fills it in)."""
    token: str | None = field(default=None, init=False, repr=False)
    """The key the connection speaks with, kept to read it again while the
    connection lives; ``None`` when it speaks with none (open local access)."""
    keys: ApiKeys = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # The registry itself: ``gm`` becomes an agent's view once the key is known.
        self.keys = self.gm.keys
        super().__post_init__()

    async def check_key(self, *, fresh: bool) -> None:
        """Raise ``UnauthenticatedError`` (as HTTP answers 401) if the connection's
        key has been revoked. ``fresh`` reads the key from the store, as an HTTP
        request does; otherwise a check made in the last ``RECHECK_EVERY_S``
        seconds is trusted, so a stream of events costs no store reads."""
        token = self.token
        if token is None or (not fresh and self.keys.checked_recently(token)):
            return
        await run_in_threadpool(self.keys.authenticate, token)


def principal_for_connection(
    gm: GraphMem,
    upgrade: Principal | None,
    params: Mapping[str, object] | None,
    upgrade_token: str | None = None,
) -> tuple[Principal, str | None]:
    """Who a websocket connection speaks for, decided at ``connection_init``, and
    the key it speaks with (``None``: none, open local access).

    Browsers cannot set headers on a websocket, so the bearer token may come in
    the ``connection_init`` payload (``{"authorization": "Bearer <key>"}``), where
    it takes precedence over the upgrade request's ``Authorization`` header. The
    upgrade's key is checked again here: ``connection_init`` may come a while after
    the upgrade, and a key revoked meanwhile must not open the connection.
    """
    given = (params or {}).get("authorization")
    if given is None:
        if upgrade is None:
            raise UnauthenticatedError(
                'an API key is required: send {"authorization": "Bearer <key>"} in connection_init'
            )
        if upgrade_token is not None and not gm.keys.checked_recently(upgrade_token):
            return gm.keys.authenticate(upgrade_token), upgrade_token
        return upgrade, upgrade_token
    token = bearer_token(given) if isinstance(given, str) else None
    if token is None:
        raise UnauthenticatedError("authorization: must be 'Bearer <key>'")
    return gm.keys.authenticate(token), token


async def connection_init(context: Context) -> None:
    """Settle the connection's principal, or refuse the connection (close code 4403)."""
    if not isinstance(context, ConnectionContext):
        return
    try:
        context.principal, context.token = await run_in_threadpool(
            principal_for_connection,
            context.gm,
            context.upgrade_principal,
            context.connection_params,
            context.upgrade_token,
        )
    except UnauthenticatedError as exc:
        raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from None
    context.act_as_principal()
