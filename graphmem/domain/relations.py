"""Relations between memories, and the log of removed ones."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from graphmem.domain.kinds import RelationType


class Relation(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: RelationType
    from_id: str
    to_id: str
    rationale: str | None = None
    weight: float = 1.0
    created_at: float


class RelationEvent(BaseModel):
    """A removed relation: the edge as it was, who removed it and why."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str = "removed"
    type: RelationType
    from_id: str
    to_id: str
    rationale: str | None = None
    weight: float = 1.0
    created_at: float | None = None
    removed_by: str
    reason: str
    at: float
