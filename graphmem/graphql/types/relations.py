"""Typed edges between memories, and the log of removed ones."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.domain import kinds, relations
from graphmem.domain.clock import as_datetime, to_datetime


@strawberry.type(description="A typed edge between two memories of one project.")
class Relation:
    type: kinds.RelationType
    from_id: strawberry.ID
    to_id: strawberry.ID
    rationale: str | None
    weight: float
    created_at: datetime

    @classmethod
    def of(cls, relation: relations.Relation) -> Relation:
        return cls(
            type=relation.type,
            from_id=strawberry.ID(relation.from_id),
            to_id=strawberry.ID(relation.to_id),
            rationale=relation.rationale,
            weight=relation.weight,
            created_at=as_datetime(relation.created_at),
        )


@strawberry.type(description="A removed relation: the edge as it was, who removed it and why.")
class RelationEvent:
    id: strawberry.ID
    type: kinds.RelationType
    from_id: strawberry.ID
    to_id: strawberry.ID
    rationale: str | None
    weight: float
    created_at: datetime | None = strawberry.field(description="When the edge was made.")
    removed_by: str
    reason: str
    at: datetime = strawberry.field(description="When it was removed.")

    @classmethod
    def of(cls, event: relations.RelationEvent) -> RelationEvent:
        return cls(
            id=strawberry.ID(event.id),
            type=event.type,
            from_id=strawberry.ID(event.from_id),
            to_id=strawberry.ID(event.to_id),
            rationale=event.rationale,
            weight=event.weight,
            created_at=to_datetime(event.created_at),
            removed_by=event.removed_by,
            reason=event.reason,
            at=as_datetime(event.at),
        )
