"""The event bus: telemetry from worker threads reaches the asyncio subscribers
of the right project and topic, a slow subscriber's backlog stays bounded and
it learns how much it missed, and closed subscribers cost nothing."""

from __future__ import annotations

import asyncio

from graphmem.domain.kinds import Tier
from graphmem.services.events import ChangeKind, EventBus, MemoryEvent, Subscription, Topic
from graphmem.services.telemetry import Telemetry


def changed(telemetry: Telemetry, project: str, *ids: str, at: float = 1.0) -> None:
    telemetry.emit("memory.changed", at, project_id=project, memory_ids=list(ids), kind="updated")


async def take(subscription: Subscription, n: int) -> list[MemoryEvent]:
    return [await asyncio.wait_for(anext(subscription), timeout=5) for _ in range(n)]


async def settle() -> None:
    """Let the loop run the deliveries that worker threads scheduled."""
    for _ in range(3):
        await asyncio.sleep(0)


def test_events_from_a_worker_thread_reach_their_project_and_topic_only() -> None:
    telemetry = Telemetry()
    bus = EventBus(telemetry)

    async def scenario() -> None:
        with (
            bus.subscribe(Topic.CHANGED, "alpha") as alpha,
            bus.subscribe(Topic.PROMOTED, "alpha") as promotions,
        ):

            def writes() -> None:
                changed(telemetry, "beta", "b1")
                telemetry.emit("candidate.added", 2.0, project_id="alpha", memory_ids=["a0"])
                changed(telemetry, "alpha", "a1", "a2", at=3.0)
                telemetry.emit(
                    "memory.promoted",
                    4.0,
                    memory_id="a3",
                    project_id="alpha",
                    from_tier="working",
                    to_tier="episodic",
                )

            await asyncio.to_thread(writes)
            got = await take(alpha, 3)
            assert [(e.memory_id, e.kind, e.at) for e in got] == [
                ("a1", ChangeKind.UPDATED, 3.0),
                ("a2", ChangeKind.UPDATED, 3.0),
                ("a3", ChangeKind.PROMOTED, 4.0),
            ]
            (promoted,) = await take(promotions, 1)
            assert (promoted.memory_id, promoted.from_tier, promoted.to_tier) == (
                "a3",
                Tier.WORKING,
                Tier.EPISODIC,
            )
            await settle()
            assert alpha._queue.empty() and promotions._queue.empty()

    asyncio.run(scenario())


def test_a_slow_subscriber_keeps_a_bounded_queue_and_is_told_what_it_missed() -> None:
    telemetry = Telemetry()
    bus = EventBus(telemetry, queue_size=3)

    async def scenario() -> None:
        with bus.subscribe(Topic.CHANGED, "alpha") as slow:
            await asyncio.to_thread(changed, telemetry, "alpha", *[f"m{i}" for i in range(10)])
            await settle()
            assert slow._queue.qsize() == 3 and slow.dropped == 7
            first = await take(slow, 3)
            assert [e.memory_id for e in first] == ["m0", "m1", "m2"]
            assert [e.missed for e in first] == [0, 0, 0]

            await asyncio.to_thread(changed, telemetry, "alpha", "later")
            (after,) = await take(slow, 1)
            assert (after.memory_id, after.missed) == ("later", 7)

    asyncio.run(scenario())


def test_closing_unsubscribes_and_a_dead_loop_does_not_break_writers() -> None:
    telemetry = Telemetry()
    bus = EventBus(telemetry)
    kept: list[Subscription] = []

    async def subscribe_and_leave() -> None:
        with bus.subscribe(Topic.CHANGED, "alpha"):
            assert bus.count("alpha", Topic.CHANGED) == 1
        assert bus.count("alpha", Topic.CHANGED) == 0
        kept.append(bus.subscribe(Topic.CHANGED, "alpha"))  # never closed by its reader

    asyncio.run(subscribe_and_leave())
    assert bus.count("alpha", Topic.CHANGED) == 1
    changed(telemetry, "alpha", "m1")  # its loop is gone: the writer carries on
    assert bus.count("alpha", Topic.CHANGED) == 0
