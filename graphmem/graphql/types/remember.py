"""What a write did: created a memory, or merged into one (and how)."""

from __future__ import annotations

from enum import StrEnum

import strawberry

from graphmem.domain import models
from graphmem.graphql.types.memory import Memory


@strawberry.enum(description="How a written memory matched the one it merged into.")
class DuplicateMatch(StrEnum):
    EXACT = "exact"
    NEAR = "near"


strawberry.enum(
    models.WriteResult,
    name="RememberOutcome",
    description="What remember did: CREATED, MERGED_EXACT, MERGED_NEAR (a restatement, its "
    "wording kept as a variant), SUPERSEDED (a new value from the same source: a new memory "
    "superseding the old one) or FLAGGED_CONFLICT (a near match that says something else: "
    "a candidate in the review queue beside the memory it may contradict).",
)


@strawberry.type(description="What remember did: created a memory, or merged into an existing one.")
class RememberPayload:
    memory: Memory = strawberry.field(
        description="The new memory, or the existing one the write was counted into."
    )
    created: bool = strawberry.field(
        description="False: the content duplicated a live memory and merged into it."
    )
    match: DuplicateMatch | None = strawberry.field(
        description="How a merged write matched; null when a memory was created."
    )
    outcome: models.WriteResult
    related_id: strawberry.ID | None = strawberry.field(
        description="The older memory a SUPERSEDED write replaced or a FLAGGED_CONFLICT "
        "write may contradict."
    )
    reason: str | None = strawberry.field(
        description="Why a near match was judged so: the difference found, or the similarity."
    )

    @classmethod
    def of(cls, memory: models.Memory, outcome: models.WriteOutcome) -> RememberPayload:
        return cls(
            memory=Memory.of(memory),
            created=outcome.created,
            match=DuplicateMatch(outcome.match) if outcome.match else None,
            outcome=outcome.result,
            related_id=strawberry.ID(outcome.related_id) if outcome.related_id else None,
            reason=outcome.reason,
        )


@strawberry.type(description="What rememberMany did with one item of the batch.")
class WriteOutcome:
    id: strawberry.ID = strawberry.field(
        description="The new memory, or the existing one the item was counted into."
    )
    created: bool = strawberry.field(
        description="False: the item duplicated a live memory (or an earlier item) and merged."
    )
    match: DuplicateMatch | None = strawberry.field(
        description="How a merged item matched; null when a memory was created."
    )
    outcome: models.WriteResult
    related_id: strawberry.ID | None = strawberry.field(
        description="The older memory a SUPERSEDED item replaced or a FLAGGED_CONFLICT item "
        "may contradict."
    )
    reason: str | None = strawberry.field(
        description="Why a near match was judged so: the difference found, or the similarity."
    )

    @classmethod
    def of(cls, outcome: models.WriteOutcome) -> WriteOutcome:
        return cls(
            id=strawberry.ID(outcome.id),
            created=outcome.created,
            match=DuplicateMatch(outcome.match) if outcome.match else None,
            outcome=outcome.result,
            related_id=strawberry.ID(outcome.related_id) if outcome.related_id else None,
            reason=outcome.reason,
        )
