"""The bounded vector cache: keyed by model and text, least recently used out first."""

from __future__ import annotations

import pytest

from graphmem.services.embeddings.cache import MAX_TEXT_CHARS, VectorCache, _cost

VECTOR = bytes(384 * 4)


def test_a_vector_is_found_by_its_model_and_text_only() -> None:
    cache = VectorCache()
    cache.put("minilm/onnx", "deploys happen on Tuesdays", VECTOR)
    assert cache.get("minilm/onnx", "deploys happen on Tuesdays") == VECTOR
    assert cache.get("minilm/torch", "deploys happen on Tuesdays") is None
    assert cache.get("minilm/onnx", "deploys happen on Mondays") is None
    assert (cache.hits, cache.misses) == (1, 2)


def test_the_least_recently_used_entry_goes_first_when_full() -> None:
    room = 3 * _cost("text 0", VECTOR)
    cache = VectorCache(max_bytes=room)
    for n in range(3):
        cache.put("m", f"text {n}", VECTOR)
    assert cache.get("m", "text 0") == VECTOR  # now the most recent
    cache.put("m", "text 3", VECTOR)
    assert cache.get("m", "text 1") is None
    assert {t for t in ("text 0", "text 2", "text 3") if cache.get("m", t)} == {
        "text 0",
        "text 2",
        "text 3",
    }
    assert len(cache) == 3
    assert cache.size_bytes <= room


def test_putting_a_text_again_does_not_count_it_twice() -> None:
    cache = VectorCache()
    cache.put("m", "same", VECTOR)
    cache.put("m", "same", VECTOR)
    assert len(cache) == 1
    assert cache.size_bytes == _cost("same", VECTOR)


def test_texts_too_long_to_be_worth_keeping_are_not_kept() -> None:
    cache = VectorCache()
    cache.put("m", "x" * (MAX_TEXT_CHARS + 1), VECTOR)
    assert len(cache) == 0


def test_a_budget_below_one_entry_keeps_nothing_and_a_negative_one_is_refused() -> None:
    cache = VectorCache(max_bytes=10)
    cache.put("m", "text", VECTOR)
    assert len(cache) == 0
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        VectorCache(max_bytes=-1)
