"""The stream benchmark's scoring: what a write's outcome says about the end state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from benchmarks.dedup_streams import STREAMS, StreamItem, load_stream, run_stream


def _item(thread: int, label: str, text: str) -> StreamItem:
    return StreamItem(thread, 1, label, text, "fact", "agent")


def _answers(*outcomes: tuple[str, str, str | None]) -> Any:
    answers: Iterator[tuple[str, str, str | None]] = iter(outcomes)
    return lambda item: next(answers)


def test_a_correction_left_beside_its_old_value_is_stale_and_one_that_supersedes_is_not() -> None:
    items = [
        _item(1, "new", "a"),
        _item(1, "corrects", "b"),
        _item(2, "new", "c"),
        _item(2, "corrects", "d"),
    ]
    tally = run_stream(
        items,
        _answers(
            ("created", "m1", None),
            ("created", "m2", None),
            ("created", "m3", None),
            ("superseded", "m4", "m3"),
        ),
    )["dev"]
    assert (tally.corrections, tally.stale_live, tally.lost) == (2, 1, 0)


def test_a_restatement_created_apart_is_a_live_duplicate_and_the_correction_must_reach_it() -> None:
    items = [_item(1, "new", "a"), _item(1, "restates", "a again"), _item(1, "corrects", "b")]
    tally = run_stream(
        items,
        _answers(("created", "m1", None), ("created", "m2", None), ("superseded", "m3", "m1")),
    )["dev"]
    assert (tally.restatements, tally.duplicates_live, tally.stale_live) == (
        1,
        1,
        1,
    )  # m2 still says a


def test_a_new_memory_merged_or_superseding_another_thread_is_lost() -> None:
    items = [_item(1, "new", "a"), _item(2, "new", "b"), _item(4, "new", "c")]
    tally = run_stream(
        items,
        _answers(("created", "m1", None), ("merged_near", "m1", None), ("superseded", "m3", "m1")),
    )["dev"]
    assert tally.lost == 2


def test_a_restatement_superseding_its_threads_stale_value_loses_nothing() -> None:
    items = [
        _item(1, "new", "a"),
        _item(1, "corrects", "b"),
        _item(1, "restates", "b again"),
        _item(2, "new", "c"),
        _item(2, "restates", "c again"),
    ]
    tally = run_stream(
        items,
        _answers(
            ("created", "m1", None),
            ("created", "m2", None),
            ("superseded", "m3", "m1"),
            ("created", "m4", None),
            ("superseded", "m5", "m1"),
        ),
    )["dev"]
    assert (tally.lost, tally.stale_live) == (1, 0)  # only the other thread's supersede


def test_a_new_memory_flagged_against_another_is_a_false_flag_not_a_loss() -> None:
    items = [_item(1, "new", "a"), _item(2, "new", "b")]
    tally = run_stream(items, _answers(("created", "m1", None), ("flagged_conflict", "m2", "m1")))[
        "dev"
    ]
    assert (tally.false_flags, tally.lost) == (1, 0)


def test_every_third_thread_is_held_out_and_each_stream_reads() -> None:
    assert _item(3, "new", "a").part == "heldout" and _item(4, "new", "a").part == "dev"
    for path in STREAMS.values():
        items = load_stream(path)
        assert items[0].label == "new"
        firsts = {i.thread for i in items if i.label == "new"}
        assert {i.thread for i in items} == firsts  # every thread opens with a new memory
        assert [i.day for i in items] == sorted(i.day for i in items)
