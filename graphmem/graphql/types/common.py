"""What every GraphQL type and resolver shares: the domain enums as GraphQL
enums, the resolvers' ``Info`` and input defaults read from the domain
models (stored times become ``DateTime`` by ``graphmem.domain.clock.as_datetime``)."""

from __future__ import annotations

from typing import Any

import strawberry
from pydantic import BaseModel

from graphmem.domain import dependencies, kinds
from graphmem.graphql.loaders import Context

# The domain enums serve as the GraphQL enums, so the two cannot drift apart;
# GraphQL shows the member names (FACT, WORKING, ...).
strawberry.enum(kinds.MemoryType, description="What kind of knowledge a memory holds.")
strawberry.enum(kinds.Tier, description="How long-lived a memory is.")
strawberry.enum(kinds.Status, description="How far a memory is trusted.")
strawberry.enum(kinds.RelationType, description="The meaning of an edge between two memories.")
strawberry.enum(
    kinds.Visibility,
    description="Who of a project's agents sees a memory: its own agent only, or every agent.",
)
strawberry.enum(kinds.Source, description="Where a memory came from.")
strawberry.enum(
    dependencies.Change,
    name="ReviewChange",
    description="How a memory that others rest on stopped being current.",
)
strawberry.enum(kinds.SuggestedBy, description="Who decided that a memory is worth keeping.")
strawberry.enum(kinds.SessionState, description="Where a session is in its lifecycle.")
strawberry.enum(kinds.SelfAssessment, description="The writer's own rating of a memory.")

Info = strawberry.Info[Context, None]


def domain_default(model: type[BaseModel], field: str) -> Any:
    """An input field's default as the domain model applies it, for the SDL to show."""
    return model.model_fields[field].get_default(call_default_factory=True)
