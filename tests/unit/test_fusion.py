"""Score fusion's pure decisions: the lexical share's bend and per-query weighting."""

from __future__ import annotations

import math

from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.services.retrieval.fulltext import SHARE_KNEE, lexical_share


def test_a_share_keeps_its_value_up_to_the_knee_and_its_order_above_it() -> None:
    assert lexical_share(0.5, 1.0) == 0.5
    assert lexical_share(SHARE_KNEE, 1.0) == SHARE_KNEE
    above = [lexical_share(score, 1.0) for score in (0.9, 1.0, 1.3, 2.0)]
    # Full matches no longer tie at 1: each stays below it, in BM25's order.
    assert above == sorted(above) and len(set(above)) == 4
    assert all(SHARE_KNEE < value < 1.0 for value in above)
    assert lexical_share(3.0, 0.0) == 0.0


def test_the_bend_is_smooth_where_it_starts() -> None:
    step = 1e-6
    slope = (lexical_share(SHARE_KNEE + step, 1.0) - SHARE_KNEE) / step
    assert math.isclose(slope, 1.0, rel_tol=1e-3)


def test_per_query_weighting_leans_on_the_retriever_whose_best_stands_out() -> None:
    vector = {f"m{i}": 0.5 for i in range(10)}
    fulltext = {"m0": 1.0, **{f"m{i}": 0.05 for i in range(1, 10)}}
    fixed = ScoreFusion().fuse(vector, fulltext)
    adaptive = ScoreFusion(peak_gain=1.0).fuse(vector, fulltext)
    # Full text finds m0 far above the rest; the cosines are flat: the lexical
    # weight grows, so m0 gains on the others.
    assert adaptive["m0"] - adaptive["m1"] > fixed["m0"] - fixed["m1"]
    # Off (the default), the weights are fixed.
    assert ScoreFusion(peak_gain=0.0).fuse(vector, fulltext) == fixed


def test_a_memory_that_says_little_keeps_less_of_its_relevance() -> None:
    fusion = ScoreFusion(full_stems=6, short_power=0.5)  # a gentler bend than the default
    kept = [fusion.substance(stems) for stems in (0, 1, 2, 3, 5, 6, 12)]
    assert kept == sorted(kept)
    assert kept[0] == kept[1] == math.sqrt(1 / 6)
    assert kept[3] == math.sqrt(0.5)
    assert kept[-2] == kept[-1] == 1.0
    # Off, every memory keeps its relevance whole.
    assert ScoreFusion(short_power=0.0).substance(1) == 1.0
