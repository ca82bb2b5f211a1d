"""Each memory's importance recomputed from its stored fields, at any time.

The staleness and overdue checks compare what a memory stores with what the
scorer gives; the fixes write what it gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.scoring import Factor, ImportanceScorer, ScoreInputs


class Scores:
    """Each memory's importance as a function of time, as ``ImportanceScorer.score``
    computes it: only recency depends on time, so the other factors are summed
    once per memory and the staleness and overdue checks reuse them."""

    def __init__(self, scorer: ImportanceScorer) -> None:
        weights = scorer.query_params()["w"]
        self.scorer = scorer
        self.recency_weight = weights[Factor.RECENCY.value]
        self.others = [
            (factor, weights[factor.value])
            for factor in Factor
            if factor is not Factor.RECENCY and weights[factor.value] > 0
        ]
        self._memo: dict[str, tuple[Mapping[str, Any], ScoreInputs, float | None]] = {}

    def at(self, node: str, attrs: Mapping[str, Any], when: float) -> float:
        memo = self._memo.get(node)
        if memo is None or memo[0] is not attrs:  # another snapshot's memory
            inputs = score_inputs(attrs)
            base = None
            if not inputs.agent_decision:
                base = sum(w * self.scorer.factor(f, inputs, when) for f, w in self.others)
            memo = self._memo[node] = (attrs, inputs, base)
        _, inputs, base = memo
        if base is None:
            return 1.0  # an agent's decision
        value = base
        if self.recency_weight:
            value += self.recency_weight * self.scorer.factor(Factor.RECENCY, inputs, when)
        return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def score_inputs(attrs: Mapping[str, Any]) -> ScoreInputs:
    """What the scorer needs, from a snapshot memory's attributes."""
    count = attrs.get("feedback_count") or 0
    last_used = attrs.get("last_accessed_at") or attrs.get("occurred_at")
    return ScoreInputs(
        memory_type=attrs.get("memory_type"),
        confidence=attrs.get("confidence") or 0.0,
        access_count=attrs.get("access_count") or 0,
        last_used_at=last_used if last_used is not None else attrs["created_at"],
        feedback_mean=(attrs.get("feedback") or 0.0) / count if count else 0.0,
        self_assessment=attrs.get("self_assessment"),
        agent_decision=attrs.get("suggested_by") == "agent",
    )


def scoring_window(attrs: Mapping[str, Any]) -> tuple[float, float]:
    """The earliest and latest time the stored importance can have been computed.

    Only recency depends on time, and it only decays, so a score computed at
    time t is exact for exactly one t. Which t is not stored: writes that
    rescore (create, access, promotion) leave a timestamp that is a lower
    bound, and every write leaves ``updated_at`` (or ``last_accessed_at``)
    behind, an upper bound; pinning, superseding or activating bump
    ``updated_at`` without rescoring. The stored importance must therefore
    lie between the score at the latest write and the score at the latest
    known rescoring; when no write followed the last rescoring the two
    bounds meet and the check is exact.
    """
    created = attrs["created_at"]
    rescored = max(
        t
        for t in (created, attrs.get("last_accessed_at"), attrs.get("promoted_at"))
        if t is not None
    )
    written = max(
        t
        for t in (
            rescored,
            attrs.get("updated_at"),
            attrs.get("archived_at"),
        )
        if t is not None
    )
    return rescored, written
