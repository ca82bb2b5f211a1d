"""Memory ids sort by creation, also within one millisecond."""

from __future__ import annotations

import re
import threading

from graphmem.domain.ids import new_id


def test_ids_made_in_a_row_sort_in_that_order() -> None:
    ids = [new_id() for _ in range(5_000)]  # many share a millisecond
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert len({i[:12] for i in ids}) < len(ids), "some ids share a millisecond"


def test_ids_from_several_threads_stay_unique() -> None:
    made: list[list[str]] = [[] for _ in range(4)]

    def make(out: list[str]) -> None:
        out.extend(new_id() for _ in range(2_000))

    threads = [threading.Thread(target=make, args=(out,)) for out in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [i for out in made for i in out]
    assert len(set(every)) == len(every)
    assert all(out == sorted(out) for out in made)
