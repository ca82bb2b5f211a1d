"""What an item repeats (``write_batch.repeats``): a claim a claim, an event
only an event of the same moment, judged alike for the batch's own rows and
for the live memories the store found with the same text."""

from __future__ import annotations

from graphmem.services.write_batch import repeated, repeated_live, repeats
from graphmem.store.queries.memories import SameText

WINDOW = 60.0


def test_a_claim_repeats_a_claim_whenever_it_was_written() -> None:
    assert repeats(None, 0.0, False, 10_000.0, WINDOW)
    assert repeats("fact", None, False, 10_000.0, WINDOW)


def test_an_event_repeats_only_an_event_of_the_same_moment() -> None:
    assert repeats("event", 1_000.0, True, 1_030.0, WINDOW)
    assert not repeats("event", 1_000.0, True, 1_000.0 + WINDOW + 1, WINDOW)
    assert not repeats("fact", 1_000.0, True, 1_000.0, WINDOW)
    assert not repeats("event", 1_000.0, False, 1_000.0, WINDOW)


def test_the_first_repeated_is_taken_in_batch_rows_and_live_memories_alike() -> None:
    rows = [
        {"id": "a", "memory_type": "event", "occurred_at": 0.0},
        {"id": "b", "memory_type": "event", "occurred_at": 500.0},
        {"id": "c", "memory_type": "event", "occurred_at": 510.0},
    ]
    live = [SameText("k", r["id"], 0.0, r["memory_type"], r["occurred_at"]) for r in rows]
    assert repeated(rows, True, 505.0, WINDOW) is rows[1]
    assert repeated_live(live, True, 505.0, WINDOW) == "b"
    assert repeated(rows, False, 505.0, WINDOW) is None
    assert repeated_live(live, False, 505.0, WINDOW) is None
