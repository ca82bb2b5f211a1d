"""How a kNN over a shared vector index is asked again (graphmem.store.knn), against
a scripted index: what each ``k`` gives, and what passes the filters."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, cast

from graphmem.store import Store
from graphmem.store.dialect import Dialect
from graphmem.store.knn import Answer, Reach, nearest

SEARCH = Reach(k=40, most=4_000, enough=20, stored=10_000)
"""As retrieval asks: twice what it needs, one more ask past shadows."""
NEAR_DUPLICATES = Reach(k=20, most=1_280, enough=3, widen=False, shadowed_below=0.5, chases=None)
"""As the writer asks for near duplicates: past shadows while they give more."""


Script = Mapping[int, tuple[int | None, int]]
"""What the index gives and what passes the filters, per k."""


def asked(dialect: Dialect, reach: Reach, script: Script) -> list[int]:
    """The ``k``s asked of one item whose index gives ``script[k]``: (given, passing)."""
    store = cast(Store, SimpleNamespace(dialect=dialect))
    ks: list[int] = []

    def ask(k: int, items: list[Any]) -> dict[Any, Answer]:
        ks.append(k)
        given, passing = script[k]
        return {item: Answer([{}] * passing, given) for item in items}

    for _ in nearest(store, ask, ["item"], reach):
        pass
    return ks


def test_filters_that_leave_too_few_of_a_whole_answer_widen_k_on_both_backends():
    script = {40: (40, 5), 160: (160, 12), 640: (640, 25)}
    assert asked(Dialect.FALKORDB, SEARCH, script) == [40, 160, 640]
    assert asked(Dialect.NEO4J, SEARCH, script) == [40, 160, 640]


def test_a_short_answer_is_asked_once_more_behind_shadows_and_is_final_otherwise():
    script = {40: (30, 5), 160: (90, 8), 640: (640, 30)}
    assert asked(Dialect.FALKORDB, SEARCH, script) == [40, 160]
    assert asked(Dialect.NEO4J, SEARCH, script) == [40]
    # An index that gave every vector the store holds has nothing behind shadows.
    whole = Reach(k=40, most=4_000, enough=20, stored=30)
    assert asked(Dialect.FALKORDB, whole, script) == [40]


def test_no_row_to_say_what_the_index_gave_widens_and_the_cap_ends_it():
    script = {40: (None, 0), 160: (None, 0), 640: (None, 0), 2_560: (None, 0), 4_000: (None, 0)}
    assert asked(Dialect.FALKORDB, SEARCH, script) == [40, 160, 640, 2_560, 4_000]


def test_near_duplicates_chase_shadows_while_they_give_more_and_nothing_at_all_always():
    growing = {20: (4, 1), 80: (9, 2), 320: (9, 2)}
    assert asked(Dialect.FALKORDB, NEAR_DUPLICATES, growing) == [20, 80, 320]
    empty = {20: (0, 0), 80: (0, 0), 320: (0, 0), 1_280: (0, 0)}
    assert asked(Dialect.FALKORDB, NEAR_DUPLICATES, empty) == [20, 80, 320, 1_280]
    assert asked(Dialect.NEO4J, NEAR_DUPLICATES, empty) == [20]
    # More than half of k given, or enough matches: the answer stands.
    assert asked(Dialect.FALKORDB, NEAR_DUPLICATES, {20: (12, 1)}) == [20]
    assert asked(Dialect.FALKORDB, NEAR_DUPLICATES, {20: (2, 3)}) == [20]
