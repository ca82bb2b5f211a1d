"""Deliveries: each knowledgeContext answer on record, the listings that read the
record back, and the pruning that keeps it within a project's bounds.

A delivery is one ``:Delivery`` node written by one statement after the answer
is computed; the memories it gave are lists on it (ids and scores by rank), so
a memory forgotten later leaves the record readable, saying the memory is gone
(docs/deliveries.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.domain.checks import MAX_PAGE_SIZE, check_between, parse
from graphmem.domain.deliveries import (
    DeliveredMemory,
    Delivery,
    DeliveryFilter,
    DeliveryPage,
    DeliveryStats,
    Given,
    HintKept,
    decode_position,
    encode_position,
    hint_digest,
    standing,
)
from graphmem.domain.ids import new_id
from graphmem.domain.models import Memory
from graphmem.domain.retrieval import ContextItem, ContextRequest
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Service
from graphmem.services.memories import readable_references
from graphmem.store.queries import deliveries

PRUNE_BATCH = 5_000
"""Deliveries one prune statement deletes at most (a long-unpruned project takes several)."""


class Deliveries(Service):
    """The record of what knowledgeContext handed out, per project."""

    def fields(
        self, request: ContextRequest, items: Sequence[ContextItem], *, project_id: str
    ) -> dict[str, Any] | None:
        """One answer's record, as the acting agent, in the parameters of
        ``record_delivery`` (the retrieval counts' statement writes it too);
        ``None`` when the record is off."""
        rule = self.rules.deliveries
        if not rule.enabled:
            return None
        hint = request.context_hint
        return {
            "id": new_id(),
            "project_id": project_id,
            "at": self._now(),
            "agent_id": acting_agent(),
            "session_id": request.session_id,
            "hint": hint if rule.hint is HintKept.TEXT else None,
            "hint_sha256": hint_digest(hint),
            "memory_ids": [item.memory.id for item in items],
            "scores": [float(item.score) for item in items],
        }

    def page(
        self,
        filter: DeliveryFilter | Mapping[str, Any] | None,
        *,
        first: int,
        after: str | None,
        project_id: str,
    ) -> DeliveryPage:
        """A project's deliveries the filter selects, newest first, as the acting
        agent may see them: its own deliveries only, and what it may not read
        among the memories given shown as hidden."""
        flt = parse(DeliveryFilter, filter or {})
        check_between("first", first, 1, MAX_PAGE_SIZE)
        position = decode_position(after) if after else None
        found = deliveries.page(
            self.store, flt, after=position, limit=first + 1, project_id=project_id
        )
        items = self._read(found[:first], project_id)
        last = items[-1] if items else None
        return DeliveryPage(
            items=items,
            has_next=len(found) > first,
            end_cursor=encode_position(last.at, last.id) if last else None,
        )

    def prune(self, *, project_id: str) -> DeliveryStats:
        """Delete what the project keeps no longer (``deliveries.keep_count`` newest,
        ``keep_days`` old); reported to telemetry as ``deliveries.pruned``."""
        rule = self.rules.deliveries
        now = self._now()
        pruned = 0
        while rule.keep_count is not None or rule.keep_days is not None:
            gone = deliveries.prune(
                self.store,
                keep_count=rule.keep_count,
                before=rule.keep_after(now),
                limit=PRUNE_BATCH,
                project_id=project_id,
            )
            pruned += gone
            if gone < PRUNE_BATCH:
                break
        if pruned:
            self.telemetry.emit("deliveries.pruned", now, project_id=project_id, pruned=pruned)
        return DeliveryStats(project_id=project_id, stored=self.stored(project_id), pruned=pruned)

    def stored(self, project_id: str) -> int:
        """How many deliveries ``project_id`` holds."""
        return deliveries.stored_per_project(self.store).get(project_id, 0)

    # -- reading a page ----------------------------------------------------

    def _read(self, records: Sequence[deliveries.Stored], project_id: str) -> list[Delivery]:
        """The records with each given memory's standing now, in one read for the
        page: ``found`` holds, for each memory still there, what the reader may
        see of it (``None``: not the reader's to read)."""
        ids = sorted({i for record in records for i in record.memory_ids or []})
        found: dict[str, Memory | None] = {}
        if ids:
            given = deliveries.given(self.store, ids, project_id)
            readable = [memory for memory in given.values() if memory is not None]
            shown = {m.id: m for m in readable_references(self.store, readable)}
            found = {memory_id: shown.get(memory_id) for memory_id in given}
        return [_delivery(record, found) for record in records]


def _delivery(record: deliveries.Stored, found: Mapping[str, Memory | None]) -> Delivery:
    ids = list(record.memory_ids or [])
    scores = list(record.scores or [])
    return Delivery(
        id=record.id,
        project_id=record.project_id,
        at=float(record.at),
        agent_id=record.agent_id,
        session_id=record.session_id,
        hint=record.hint,
        hint_sha256=record.hint_sha256,
        memories=[
            _given(rank, memory_id, float(score), memory_id in found, found.get(memory_id))
            for rank, (memory_id, score) in enumerate(zip(ids, scores, strict=True), start=1)
        ],
    )


def _given(
    rank: int, memory_id: str, score: float, present: bool, memory: Memory | None
) -> DeliveredMemory:
    """One given memory: hidden ones keep only their rank and score."""
    state = standing(memory, present=present)
    if state is Given.HIDDEN:
        return DeliveredMemory(rank=rank, score=score, memory_id=None, state=state)
    return DeliveredMemory(rank=rank, score=score, memory_id=memory_id, state=state, memory=memory)
