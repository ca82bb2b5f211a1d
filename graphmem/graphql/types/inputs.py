"""The inputs that write and select memories, their defaults the domain's."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.domain import kinds, models
from graphmem.graphql.types.common import domain_default


@strawberry.input(description="A new memory. Limits are in the README.")
class MemoryInput:
    content: str
    memory_type: kinds.MemoryType | None = None
    confidence: float = domain_default(models.MemoryInput, "confidence")
    source: kinds.Source = domain_default(models.MemoryInput, "source")
    suggested_by: kinds.SuggestedBy = domain_default(models.MemoryInput, "suggested_by")
    self_assessment: kinds.SelfAssessment | None = None
    tier: kinds.Tier = domain_default(models.MemoryInput, "tier")
    pinned: bool = domain_default(models.MemoryInput, "pinned")
    tags: list[str] = strawberry.field(default_factory=list)
    rationale: str | None = None
    evidence: list[str] = strawberry.field(default_factory=list)
    session_id: strawberry.ID | None = None
    agent_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="Who writes it; a key bound to an agent writes as that agent only.",
    )
    visibility: kinds.Visibility | None = strawberry.field(
        default=None,
        description="PRIVATE to its agent or SHARED with the project; the project's default "
        "when absent (always SHARED without an agent).",
    )
    occurred_at: datetime | None = strawberry.field(
        default=None,
        description="When it happened (a conversation turn's time, say); the time of the "
        "write when absent. At most a few minutes in the future.",
    )
    valid_from: datetime | None = strawberry.field(
        default=None,
        description="When what it records began to hold; occurredAt when absent.",
    )
    valid_to: datetime | None = strawberry.field(
        default=None,
        description="When it stopped holding (the key was rotated on 3 May); open when "
        "absent. Not before validFrom.",
    )


@strawberry.input(description="Changes to a memory; a field left out or null stays as it is.")
class MemoryUpdateInput:
    content: str | None = None
    memory_type: kinds.MemoryType | None = None
    confidence: float | None = None
    self_assessment: kinds.SelfAssessment | None = None
    tags: list[str] | None = None
    rationale: str | None = None
    evidence: list[str] | None = None
    valid_from: datetime | None = strawberry.field(
        default=None, description="When what it records began to hold."
    )
    valid_to: datetime | None = strawberry.field(
        default=None,
        description="When it stopped holding; stays if a SUPERSEDES relation into it is "
        "removed later. Not before validFrom.",
    )


@strawberry.input(description="Which memories to list; every field given must match.")
class MemoryFilter:
    tier: kinds.Tier | None = None
    status: kinds.Status | None = None
    memory_type: kinds.MemoryType | None = None
    session_id: strawberry.ID | None = None
    tags: list[str] = strawberry.field(
        default_factory=list, description="Memories carrying every one of these tags."
    )
    pinned: bool | None = None
    include_archived: bool = domain_default(models.MemoryFilter, "include_archived")
    include_candidates: bool = strawberry.field(
        default=domain_default(models.MemoryFilter, "include_candidates"),
        description="False hides candidates, leaving only active memories.",
    )
