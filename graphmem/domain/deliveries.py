"""The record of what each knowledgeContext answer handed out (a delivery).

Pure: the models of a delivery and of one memory given in it, the filter the
listings take, how a hint is kept (its SHA-256 digest, or its text), how a
given memory stands now, and the listings' cursors. The service that writes
and reads them is ``graphmem.services.deliveries``; docs/deliveries.md says why
the record keeps the given memories as lists on one node.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from graphmem.domain.checks import Identifier
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory


class HintKept(StrEnum):
    """How a delivery keeps the hint it answered (``deliveries.hint``)."""

    DIGEST = "digest"
    """Only its SHA-256: a hint can be checked against the record, not read from it."""
    TEXT = "text"
    """The text as well as the digest."""


class Given(StrEnum):
    """How a memory given in a delivery stands now."""

    CURRENT = "current"
    MARKED = "marked"
    """Marked as needing review: what it rests on changed since."""
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    FORGOTTEN = "forgotten"
    """Deleted since (``forget``): the record keeps its id, score and rank."""
    HIDDEN = "hidden"
    """A memory the reader may not read (another agent's private one): shown as
    another memory, its id withheld."""


CHANGED = frozenset({Given.MARKED, Given.SUPERSEDED, Given.ARCHIVED, Given.FORGOTTEN})
"""What ``DeliveryFilter.changed`` looks for: a memory no longer as it was given."""


def hint_digest(hint: str) -> str:
    """The hex SHA-256 of a hint's UTF-8 text, as every delivery keeps it."""
    return hashlib.sha256(hint.encode()).hexdigest()


def standing(memory: Memory | None, *, present: bool) -> Given:
    """How a given memory stands now: gone (not ``present``), not the reader's
    to read (present, ``memory`` withheld), or by its fields; the strongest
    change wins."""
    if not present:
        return Given.FORGOTTEN
    if memory is None:
        return Given.HIDDEN
    if memory.superseded_by:
        return Given.SUPERSEDED
    if memory.tier is Tier.ARCHIVED:
        return Given.ARCHIVED
    if memory.review_change:
        return Given.MARKED
    return Given.CURRENT


class DeliveredMemory(BaseModel):
    """One memory a delivery gave: its rank and score then, and how it stands now."""

    model_config = ConfigDict(frozen=True)

    rank: int
    """1 for the first memory of the answer."""
    score: float
    """Its knowledgeContext score in that answer."""
    memory_id: str | None
    """``None`` only when ``state`` is hidden."""
    state: Given
    memory: Memory | None = None
    """The memory as it is now; ``None`` when forgotten or hidden."""


class Delivery(BaseModel):
    """One knowledgeContext answer, as recorded."""

    model_config = ConfigDict(frozen=True)

    id: str
    project_id: str
    at: float
    """When it was answered (UTC epoch seconds, the store's clock)."""
    agent_id: str | None = None
    """The agent it was answered as; ``None``: no agent."""
    session_id: str | None = None
    """The session the request named (its ``session_id``)."""
    hint: str | None = None
    """The hint's text, kept only under ``deliveries.hint: text``."""
    hint_sha256: str
    memories: list[DeliveredMemory] = Field(default_factory=list)

    @property
    def changed(self) -> list[DeliveredMemory]:
        """The memories given that are no longer as they were (``CHANGED``)."""
        return [given for given in self.memories if given.state in CHANGED]


class DeliveryFilter(BaseModel):
    """Which deliveries a listing returns; every field given must match."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
    )

    session_id: Identifier | None = None
    agent_id: Identifier | None = None
    memory_id: Identifier | None = None
    """Only deliveries that gave this memory."""
    since: datetime | None = None
    """Only deliveries at or after this time."""
    until: datetime | None = None
    """Only deliveries before this time."""
    changed: bool = False
    """Only deliveries that gave a memory since superseded, archived, marked for
    review or forgotten."""

    @model_validator(mode="after")
    def _ordered(self) -> DeliveryFilter:
        if self.since and self.until and self.since.timestamp() >= self.until.timestamp():
            raise ValueError("until: must be later than since")
        return self


class DeliveryPage(BaseModel):
    """One page of deliveries, newest first."""

    items: list[Delivery]
    has_next: bool
    end_cursor: str | None = None


class DeliveryStats(BaseModel):
    """What a project's record holds and what a prune took away."""

    project_id: str
    stored: int
    pruned: int = 0


def encode_position(at: float, delivery_id: str) -> str:
    """A cursor after the delivery at ``at`` with ``delivery_id`` (newest first)."""
    return base64.urlsafe_b64encode(json.dumps([at, delivery_id]).encode()).decode()


def decode_position(cursor: str) -> tuple[float, str]:
    try:
        at, delivery_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if type(at) in (int, float) and math.isfinite(at) and isinstance(delivery_id, str):
            return float(at), delivery_id
    except (ValueError, TypeError, binascii.Error):
        pass
    raise InvalidInputError("after: not a cursor this API returned", field="after")
