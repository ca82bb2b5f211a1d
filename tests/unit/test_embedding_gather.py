"""Gathering concurrent embedding calls into one model call (a fake model: pure logic)."""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from graphmem.services.embeddings.gather import Gatherer


class FakeModel:
    """One row per text: the text's length and its batch's number."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            self.batches.append(list(texts))
            number = len(self.batches)
        return np.array([[len(t), number] for t in texts], dtype=np.float32)


def test_calls_arriving_together_run_as_one_batch_and_each_gets_its_rows() -> None:
    model = FakeModel()
    # Always busy, with a long window: the batch closes because it is full, not
    # because time passed.
    gatherer = Gatherer(model, window_s=60.0, max_texts=4, busy_s=math.inf)
    texts = [["a"], ["bb", "ccc"], ["dddd"]]
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(gatherer.embed, texts))
    assert len(model.batches) == 1
    assert sorted(model.batches[0]) == ["a", "bb", "ccc", "dddd"]
    for asked, rows in zip(texts, results, strict=True):
        assert rows[:, 0].tolist() == [len(t) for t in asked]
    assert gatherer.batches == 1


def test_a_text_asked_for_twice_in_one_batch_is_embedded_once() -> None:
    model = FakeModel()
    gatherer = Gatherer(model, window_s=60.0, max_texts=3, busy_s=math.inf)
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(gatherer.embed, [["same", "x"], ["same"]])
    assert [sorted(b) for b in model.batches] == [["same", "x"]]
    assert first[0].tolist() == second[0].tolist()


def test_a_batch_is_bounded_and_the_rest_waits_for_the_next() -> None:
    model = FakeModel()
    gatherer = Gatherer(model, window_s=0.0, max_texts=2)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(gatherer.embed, [["a"], ["b"], ["c"], ["d"]]))
    assert all(len(batch) <= 2 for batch in model.batches)
    assert sorted(t for batch in model.batches for t in batch) == ["a", "b", "c", "d"]
    assert [r.shape for r in results] == [(1, 2)] * 4


def test_a_failing_model_call_fails_every_caller_of_its_batch() -> None:
    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("model exploded")

    gatherer = Gatherer(broken, window_s=60.0, max_texts=2, busy_s=math.inf)
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(gatherer.embed, [t]) for t in ("a", "b")]
        for future in futures:
            with pytest.raises(RuntimeError, match="model exploded"):
                future.result()


def test_more_texts_than_a_batch_holds_are_refused_with_the_limit() -> None:
    gatherer = Gatherer(FakeModel(), max_texts=2)
    with pytest.raises(ValueError, match="at most 2 texts"):
        gatherer.embed(["a", "b", "c"])
    with pytest.raises(ValueError, match="max_texts must be >= 1"):
        Gatherer(FakeModel(), max_texts=0)


def test_after_a_quiet_spell_a_lone_call_runs_without_waiting_the_window() -> None:
    model = FakeModel()
    # Never busy: a window of a minute would otherwise hold this call that long.
    gatherer = Gatherer(model, window_s=60.0, max_texts=4, busy_s=0.0)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(gatherer.embed, ["alone"])
        rows = future.result(timeout=30)
    assert rows[:, 0].tolist() == [5]
    assert model.batches == [["alone"]]
