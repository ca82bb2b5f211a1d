"""Reciprocal rank fusion: one ranking out of several retrievers' rankings.

RRF needs no calibration between incomparable scores (cosine similarity and
TF-IDF) and rewards what several retrievers agree on: each list adds
``1 / (k + rank)`` for every item it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DEFAULT_K = 60
"""The usual constant: ranks 1 and 2 differ little, ranks 1 and 50 a lot."""


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    *,
    k: int = DEFAULT_K,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Fused score of every id in any ranking, normalised to [0, 1].

    Each ranking adds ``weight / (k + rank)``; 1.0 means ranked first by every
    retriever that ran, so relevance means the same whether one retriever ran
    or two. A retriever without a weight counts 1.
    """
    if not rankings:
        return {}
    weights = weights or {}
    fused: dict[str, float] = {}
    best = 0.0
    for name, ranking in rankings.items():
        weight = weights.get(name, 1.0)
        best += weight / (k + 1)
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return {item: score / best for item, score in fused.items()}
