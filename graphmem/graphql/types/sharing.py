"""The log of who shared, unshared or copied a memory."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.domain import kinds, projects
from graphmem.domain.clock import as_datetime


@strawberry.type(description="A logged change of who sees a memory: shared, unshared or copied.")
class SharingEvent:
    id: strawberry.ID
    memory_id: strawberry.ID
    kind: str = strawberry.field(description="shared, unshared or copied.")
    by: str = strawberry.field(
        description="The agent that did it, or 'admin' for a caller bound to no agent."
    )
    from_visibility: kinds.Visibility | None
    to_visibility: kinds.Visibility | None
    to_project_id: strawberry.ID | None = strawberry.field(description="Where a copy went.")
    copy_id: strawberry.ID | None = strawberry.field(description="The copy's id there.")
    at: datetime

    @classmethod
    def of(cls, event: projects.SharingEvent) -> SharingEvent:
        return cls(
            id=strawberry.ID(event.id),
            memory_id=strawberry.ID(event.memory_id),
            kind=event.kind,
            by=event.by,
            from_visibility=event.from_visibility,
            to_visibility=event.to_visibility,
            to_project_id=strawberry.ID(event.to_project_id) if event.to_project_id else None,
            copy_id=strawberry.ID(event.copy_id) if event.copy_id else None,
            at=as_datetime(event.at),
        )
