"""Memory events for live subscribers: telemetry, narrowed to what happened to
which memory of which project, handed to asyncio consumers.

Write paths run in worker threads and must never wait for a subscriber, so a
write costs one ``loop.call_soon_threadsafe`` per interested subscriber. Each
subscriber's queue is bounded: a subscriber that falls behind loses the events
that arrive while its queue is full and is told how many with the next event it
gets, instead of the server's memory growing with its backlog.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from graphmem.domain.kinds import Tier
from graphmem.services.telemetry import Event, Telemetry

QUEUE_SIZE = 1_024
"""Events one subscriber may have waiting; beyond that new ones are counted, not kept."""


class ChangeKind(StrEnum):
    """What happened to a memory."""

    CREATED = "created"
    MERGED = "merged"
    """A duplicate was written and counted as another occurrence of it."""
    UPDATED = "updated"
    FEEDBACK = "feedback"
    PINNED = "pinned"
    UNPINNED = "unpinned"
    RELATED = "related"
    """An edge to or from it was added or changed."""
    ACTIVATED = "activated"
    """A candidate became active."""
    PROMOTED = "promoted"
    FORGOTTEN = "forgotten"
    MARKED = "marked"
    """A memory it rests on stopped being current: it needs review."""
    CONFIRMED = "confirmed"
    """Its review mark went: a reviewer confirmed it, or the change was undone."""


class Topic(StrEnum):
    """What a subscriber listens to."""

    CHANGED = "changed"
    PROMOTED = "promoted"
    CANDIDATE_ADDED = "candidate_added"


@dataclass(frozen=True)
class MemoryEvent:
    topic: Topic
    kind: ChangeKind
    memory_id: str
    project_id: str
    at: float
    from_tier: Tier | None = None
    to_tier: Tier | None = None
    missed: int = 0
    """Events of this subscription dropped just before this one because it fell behind."""


def memory_events(event: Event) -> list[MemoryEvent]:
    """The memory events a telemetry event stands for (none for most of them).

    ``memory.changed`` and ``candidate.added`` name a batch (``memory_ids``);
    the others name one memory.
    """
    fields = event.fields
    project = fields.get("project_id")
    if project is None:
        return []

    def each(topic: Topic, kind: ChangeKind, ids: Iterable[str], **extra: Any) -> list[MemoryEvent]:
        return [MemoryEvent(topic, kind, i, project, event.at, **extra) for i in ids]

    match event.name:
        case "memory.changed":
            return each(Topic.CHANGED, ChangeKind(fields["kind"]), fields["memory_ids"])
        case "candidate.added":
            return each(Topic.CANDIDATE_ADDED, ChangeKind.CREATED, fields["memory_ids"])
        case "staging.merged":
            return each(Topic.CHANGED, ChangeKind.MERGED, [fields["memory_id"]])
        case "staging.activated":
            return each(Topic.CHANGED, ChangeKind.ACTIVATED, [fields["memory_id"]])
        case "memory.promoted":
            tiers = {"from_tier": Tier(fields["from_tier"]), "to_tier": Tier(fields["to_tier"])}
            return [
                *each(Topic.PROMOTED, ChangeKind.PROMOTED, [fields["memory_id"]], **tiers),
                *each(Topic.CHANGED, ChangeKind.PROMOTED, [fields["memory_id"]], **tiers),
            ]
    return []


class Subscription:
    """One consumer's stream of one topic in one project, read with ``async for``
    on the event loop it was made on; ``with`` it so it is closed when the reader
    goes away."""

    def __init__(
        self,
        topic: Topic,
        project_id: str,
        loop: asyncio.AbstractEventLoop,
        close: Callable[[Subscription], None],
        queue_size: int,
    ) -> None:
        self.topic = topic
        self.project_id = project_id
        self.dropped = 0
        """Events lost to a full queue over the subscription's life."""
        self._loop = loop
        self._close = close
        self._queue: asyncio.Queue[MemoryEvent] = asyncio.Queue(queue_size)
        self._missed = 0

    def deliver(self, batch: list[MemoryEvent]) -> None:
        """Hand events over from any thread: one wake-up of the loop per batch, as
        a write of a thousand memories must not cost a thousand."""
        try:
            self._loop.call_soon_threadsafe(self._put, batch)
        except RuntimeError:  # the loop has closed: nobody is reading any more
            self.close()

    def _put(self, batch: list[MemoryEvent]) -> None:
        for event in batch:
            if self._queue.full():
                self._missed += 1
                self.dropped += 1
                continue
            if self._missed:
                event = replace(event, missed=self._missed)
                self._missed = 0
            self._queue.put_nowait(event)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> MemoryEvent:
        return await self._queue.get()

    def close(self) -> None:
        """Stop deliveries; what is queued is dropped with the subscription."""
        self._close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Routes a GraphMem's telemetry to the subscriptions of each project and topic."""

    def __init__(self, telemetry: Telemetry, *, queue_size: int = QUEUE_SIZE) -> None:
        self._queue_size = queue_size
        self._lock = threading.Lock()
        self._subscriptions: dict[str, dict[Topic, set[Subscription]]] = {}
        """Per project, per topic."""
        telemetry.subscribe(self._on_event)

    def subscribe(self, topic: Topic, project_id: str) -> Subscription:
        """A subscription fed from now on; call from the event loop that will read it."""
        subscription = Subscription(
            topic, project_id, asyncio.get_running_loop(), self._remove, self._queue_size
        )
        with self._lock:
            topics = self._subscriptions.setdefault(project_id, {})
            topics.setdefault(topic, set()).add(subscription)
        return subscription

    def count(self, project_id: str, topic: Topic) -> int:
        """Live subscriptions of one project and topic."""
        with self._lock:
            return len(self._subscriptions.get(project_id, {}).get(topic, ()))

    def _remove(self, subscription: Subscription) -> None:
        with self._lock:
            topics = self._subscriptions.get(subscription.project_id, {})
            subscriptions = topics.get(subscription.topic, set())
            subscriptions.discard(subscription)
            if not subscriptions:
                topics.pop(subscription.topic, None)
            if not topics:
                self._subscriptions.pop(subscription.project_id, None)

    def _on_event(self, event: Event) -> None:
        # Most events concern a project nobody follows: nothing is built for them.
        if event.fields.get("project_id") not in self._subscriptions:
            return
        batches: dict[Topic, list[MemoryEvent]] = {}
        for memory_event in memory_events(event):
            batches.setdefault(memory_event.topic, []).append(memory_event)
        with self._lock:
            topics = self._subscriptions.get(event.fields["project_id"], {})
            targets = [(list(topics.get(topic, ())), batch) for topic, batch in batches.items()]
        for subscriptions, batch in targets:
            for subscription in subscriptions:
                subscription.deliver(batch)
