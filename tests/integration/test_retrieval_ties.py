"""Results of equal score come in one order, whatever order the store returned
them in: what happened more recently first, then by write, then by id."""

from __future__ import annotations

from graphmem.api import GraphMem
from graphmem.domain.clock import ManualClock


def test_equal_scores_order_by_when_it_happened_not_by_id(gm: GraphMem, clock: ManualClock) -> None:
    now = clock.now()
    # Written first (the smaller id), but of the earlier event.
    older, newer = gm.remember_many(
        [
            {"content": "the nightly backup runs at two", "occurred_at": now - 7_200},
            {"content": "the nightly backup runs at two", "occurred_at": now - 3_600},
        ],
        dedup=False,
    )
    assert older < newer
    # Touched at the same instant: relevance, importance, recency and confidence
    # are all equal, so only the tie order separates them.
    gm.record_access(older)
    gm.record_access(newer)
    for _ in range(3):
        found = gm.search("nightly backup", limit=5)
        assert [hit.memory.id for hit in found.hits] == [newer, older]
        assert found.hits[0].score == found.hits[1].score
        context = gm.knowledge_context("nightly backup", max_results=5, record_access=False)
        assert [item.memory.id for item in context.items] == [newer, older]
        assert context.items[0].score == context.items[1].score


def test_equal_scores_and_times_order_by_id(gm: GraphMem) -> None:
    ids = gm.remember_many(
        [{"content": "deploys freeze on Fridays"} for _ in range(4)], dedup=False
    )
    for _ in range(3):
        found = gm.search("deploys freeze", limit=10)
        assert [hit.memory.id for hit in found.hits] == sorted(ids)
