"""Which words a full-text query keeps when no memory holds every common one."""

from __future__ import annotations

from graphmem.retrieval.fulltext import relaxed

COUNTS = {"queue": 9_000, "time": 20_000, "redis": 4_000, "streams": 3_500, "qzx7731": 3}


def test_the_most_common_required_word_goes_first_and_rare_words_stay():
    terms = ["queue", "time", "redis", "streams", "qzx7731"]
    assert relaxed(terms, COUNTS, common=1_000) == ["queue", "redis", "streams", "qzx7731"]


def test_relaxing_again_drops_the_next_most_common_until_one_is_required():
    terms = ["queue", "time", "redis", "streams"]
    steps = []
    while terms is not None:
        steps.append(terms)
        terms = relaxed(terms, COUNTS, common=1_000)
    assert steps[-1] == ["streams"]
    assert [len(s) for s in steps] == [4, 3, 2, 1]


def test_nothing_to_relax_with_fewer_than_two_common_words():
    assert relaxed(["time", "qzx7731"], COUNTS, common=1_000) is None
    assert relaxed(["qzx7731"], COUNTS, common=1_000) is None
    assert relaxed(["queue", "time"], COUNTS, common=50_000) is None


def test_equal_counts_drop_in_one_order():
    counts = {"alpha": 5_000, "beta": 5_000}
    assert relaxed(["alpha", "beta"], counts, common=1_000) == ["alpha"]
    assert relaxed(["beta", "alpha"], counts, common=1_000) == ["alpha"]
