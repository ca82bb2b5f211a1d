"""Sessions: the threads of work memories are recorded in."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.domain import kinds, sessions
from graphmem.domain.clock import as_datetime


@strawberry.type(description="A thread of work that memories are recorded in.")
class Session:
    id: strawberry.ID
    project_id: strawberry.ID
    state: kinds.SessionState
    name: str | None
    promotion_enabled: bool
    promotion_interval_seconds: float | None = strawberry.field(
        description="Seconds between periodic promotion runs; null: the server's default."
    )
    max_items: int | None = strawberry.field(
        description="Working-tier size that triggers promotion; null: the server's default."
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, session: sessions.Session) -> Session:
        return cls(
            id=strawberry.ID(session.id),
            project_id=strawberry.ID(session.project_id),
            state=session.state,
            name=session.name,
            promotion_enabled=session.promotion_enabled,
            promotion_interval_seconds=session.promotion_interval_seconds,
            max_items=session.max_items,
            created_at=as_datetime(session.created_at),
            updated_at=as_datetime(session.updated_at),
        )
