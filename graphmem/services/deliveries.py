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

from graphmem.domain.checks import MAX_PAGE_SIZE, parse
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
from graphmem.domain.errors import InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.retrieval import ContextItem, ContextRequest
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Service
from graphmem.services.memories import readable_references
from graphmem.store import Row

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
        if type(first) is not int or not 1 <= first <= MAX_PAGE_SIZE:
            raise InvalidInputError(f"first: must be between 1 and {MAX_PAGE_SIZE}", field="first")
        after_at, after_id = decode_position(after) if after else (None, None)
        rows = self.store.read(
            "deliveries",
            {
                "project_id": project_id,
                "agent_id": flt.agent_id,
                "session_id": flt.session_id,
                "memory_id": flt.memory_id,
                "since": flt.since.timestamp() if flt.since else None,
                "until": flt.until.timestamp() if flt.until else None,
                "changed": flt.changed,
                "after_at": after_at,
                "after_id": after_id,
                "limit": first + 1,
            },
        )
        records = [row["delivery"] for row in rows[:first]]
        items = self._read(records, project_id)
        last = items[-1] if items else None
        return DeliveryPage(
            items=items,
            has_next=len(rows) > first,
            end_cursor=encode_position(last.at, last.id) if last else None,
        )

    def prune(self, *, project_id: str) -> DeliveryStats:
        """Delete what the project keeps no longer (``deliveries.keep_count`` newest,
        ``keep_days`` old); reported to telemetry as ``deliveries.pruned``."""
        rule = self.rules.deliveries
        now = self._now()
        pruned = 0
        while rule.keep_count is not None or rule.keep_days is not None:
            rows = self.store.write(
                "prune_deliveries",
                {
                    "project_id": project_id,
                    "keep_count": rule.keep_count,
                    "before": rule.keep_after(now),
                    "limit": PRUNE_BATCH,
                },
            )
            gone = int(rows[0]["pruned"]) if rows else 0
            pruned += gone
            if gone < PRUNE_BATCH:
                break
        if pruned:
            self.telemetry.emit("deliveries.pruned", now, project_id=project_id, pruned=pruned)
        return DeliveryStats(project_id=project_id, stored=self.stored(project_id), pruned=pruned)

    def stored(self, project_id: str) -> int:
        """How many deliveries ``project_id`` holds."""
        counts = {row["project_id"]: int(row["deliveries"]) for row in self.counts()}
        return counts.get(project_id, 0)

    def counts(self) -> list[Row]:
        """Deliveries stored per project, for the metrics gauge."""
        return self.store.read("count_deliveries")

    # -- reading a page ----------------------------------------------------

    def _read(self, records: Sequence[Mapping[str, Any]], project_id: str) -> list[Delivery]:
        """The records with each given memory's standing now, in one read for the
        page: ``found`` holds, for each memory still there, what the reader may
        see of it (``None``: not the reader's to read)."""
        ids = sorted({i for record in records for i in record.get("memory_ids") or []})
        found: dict[str, Memory | None] = {}
        if ids:
            rows = self.store.read("delivered_memories", {"ids": ids, "project_id": project_id})
            readable = [memory_from_fields(row["memory"]) for row in rows if row["readable"]]
            shown = {m.id: m for m in readable_references(self.store, readable)}
            found = {row["id"]: shown.get(row["id"]) for row in rows}
        return [_delivery(record, found) for record in records]


def _delivery(record: Mapping[str, Any], found: Mapping[str, Memory | None]) -> Delivery:
    ids = list(record.get("memory_ids") or [])
    scores = list(record.get("scores") or [])
    return Delivery(
        id=record["id"],
        project_id=record["project_id"],
        at=float(record["at"]),
        agent_id=record.get("agent_id"),
        session_id=record.get("session_id"),
        hint=record.get("hint"),
        hint_sha256=record["hint_sha256"],
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
