"""What several tools declare alike: how they touch the store, the parameters
they share and the words that describe them, so an agent reads one meaning in
one wording."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.domain import checks, kinds
from graphmem.domain.checks import Identifier
from graphmem.domain.retrieval.arguments import STOOD_AT
from graphmem.mcp.params import Param, own

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTROYS = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

ViewOf = Annotated[
    Identifier | None,
    Field(
        description="Only what this agent sees (its own memories and the shared ones); a key "
        "bound to an agent may name only its own."
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=128, description="A memory's id.")]
"""Named ``id`` where a tool takes one memory, as GraphQL names it."""
Rationale = Annotated[
    str | None,
    Field(max_length=checks.MAX_RATIONALE_CHARS, description="Why; shown with the memory."),
]
RelationType = Annotated[kinds.RelationType, Field(description="The relation's type.")]
TAGS = "Every one of these tags."
AS_OF = STOOD_AT
"""The retrieval requests word their own fields (``graphmem.domain.retrieval.arguments``);
the tools that take a time but no request say it as they do."""


def memory_id(name: str = "id") -> Param:
    """A memory's id, passed to GraphMem as ``memory_id`` when the tool calls it ``id``."""
    return own(name, MemoryId, into="memory_id" if name == "id" else name)


def reason(says: str) -> Param:
    """Why a logged change is made: required, as long as a rejection's reason."""
    return own("reason", Annotated[str, Field(min_length=1, max_length=500, description=says)])


def acting(into: str, says: str) -> Param:
    """``agent_id``: who a logged change names, passed as ``into`` (the API key when absent)."""
    return own("agent_id", Annotated[Identifier | None, Field(description=says)], None, into=into)
