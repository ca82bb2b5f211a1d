"""Importance scoring: how much a memory deserves to be kept and promoted.

A preset is a weighted sum of named factors, each in [0, 1]. Weights are
normalised by their sum, so every breakdown's contributions add up to the
total and the total stays in [0, 1] whatever weights an operator picks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphmem.domain.errors import InvalidInputError, invalid_input
from graphmem.domain.kinds import MemoryType, SelfAssessment, SuggestedBy
from graphmem.domain.models import Memory

AGENT_DECISION = "agent_decision"

SALIENCE: dict[MemoryType | None, float] = {
    MemoryType.DECISION: 1.0,
    MemoryType.ARCHITECTURAL_DECISION: 1.0,
    MemoryType.CONVENTION: 1.0,
    MemoryType.CODING_STANDARD: 1.0,
    MemoryType.LESSON_LEARNED: 1.0,
    MemoryType.RISK: 1.0,
    MemoryType.RULE: 1.0,
    MemoryType.DISCOVERY: 0.8,
    MemoryType.ERROR_PATTERN: 0.8,
    MemoryType.FACT: 0.7,
    MemoryType.GOAL: 0.7,
    MemoryType.HYPOTHESIS: 0.5,
    MemoryType.PREFERENCE: 0.5,
    MemoryType.ASSUMPTION: 0.4,
}
DEFAULT_SALIENCE = 0.3

SELF_ASSESSMENT_VALUE = {
    SelfAssessment.LOW: 0.3,
    SelfAssessment.MEDIUM: 0.6,
    SelfAssessment.HIGH: 0.9,
}


def salience(memory_type: MemoryType | str | None) -> float:
    if memory_type is None:
        return DEFAULT_SALIENCE
    try:
        return SALIENCE.get(MemoryType(memory_type), DEFAULT_SALIENCE)
    except ValueError:
        return DEFAULT_SALIENCE


class Factor(StrEnum):
    RECENCY = "recency"
    FREQUENCY = "frequency"
    CONFIDENCE = "confidence"
    SALIENCE = "salience"
    SELF_ASSESSMENT = "self_assessment"
    FEEDBACK = "feedback"


class ScoringPreset(BaseModel):
    """Weights and curve shapes; validated so a bad configuration fails loudly."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    weights: dict[Factor, float]
    recency_curve: Literal["hyperbolic", "exponential"] = "hyperbolic"
    recency_minutes: float = Field(default=30.0, gt=0)
    """Hyperbolic: the age at which recency is 0.5. Exponential: the time constant."""
    frequency_curve: Literal["linear", "log"] = "linear"
    frequency_cap: int = Field(default=10, gt=0)

    @field_validator("weights")
    @classmethod
    def _valid_weights(cls, weights: dict[Factor, float]) -> dict[Factor, float]:
        for factor, weight in weights.items():
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"weight for {factor.value} must be a finite number >= 0")
        if sum(weights.values()) <= 0:
            raise ValueError("weights must not sum to zero")
        return weights


DEFAULT_PRESET = ScoringPreset(
    name="default",
    weights={
        Factor.RECENCY: 0.2,
        Factor.FREQUENCY: 0.3,
        Factor.CONFIDENCE: 0.25,
        Factor.SALIENCE: 0.25,
    },
)

JARVIS_PRESET = ScoringPreset(
    name="jarvis",
    weights={
        Factor.RECENCY: 0.4,
        Factor.FREQUENCY: 0.3,
        Factor.SELF_ASSESSMENT: 0.2,
        Factor.FEEDBACK: 0.1,
    },
    recency_curve="exponential",
    recency_minutes=24 * 60.0,
    frequency_curve="log",
    frequency_cap=100,
)

PRESETS = {preset.name: preset for preset in (DEFAULT_PRESET, JARVIS_PRESET)}


@dataclass(frozen=True, slots=True)
class ScoreInputs:
    """The few facts about a memory that importance depends on."""

    memory_type: MemoryType | str | None
    confidence: float
    access_count: int
    last_used_at: float
    feedback_mean: float = 0.0
    self_assessment: SelfAssessment | str | None = None
    agent_decision: bool = False
    """An agent's explicit "remember this": importance 1.0, whatever the factors."""

    @classmethod
    def of(cls, memory: Memory) -> ScoreInputs:
        mean = memory.feedback / memory.feedback_count if memory.feedback_count else 0.0
        return cls(
            memory_type=memory.memory_type,
            confidence=memory.confidence,
            access_count=memory.access_count,
            last_used_at=memory.last_used_at,
            feedback_mean=mean,
            self_assessment=memory.self_assessment,
            agent_decision=memory.suggested_by is SuggestedBy.AGENT,
        )


class ScoreComponent(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    """The factor (``Factor``). ``frequency`` counts accesses only (``access_count``,
    from ``record_access``): being retrieved or remembered again is counted apart
    (``retrieval_count``, ``occurrence_count``) and raises no frequency: a use is
    evidence of worth, a repeat or a retrieval is not."""
    value: float
    """The factor on its own, in [0, 1]."""
    weight: float
    """The normalised weight; all weights of a preset sum to 1."""
    contribution: float
    """value * weight; the contributions sum to the total."""


class RuleNote(BaseModel):
    """A retention rule that bore on a promotion decision beside the score itself."""

    model_config = ConfigDict(frozen=True)

    rule: str
    """``threshold``, ``time_decay``, ``tag``, ``evidence`` or ``agent_decision``."""
    detail: str


class ImportanceBreakdown(BaseModel):
    model_config = ConfigDict(frozen=True)

    preset: str
    total: float
    components: list[ScoreComponent]
    rules: list[RuleNote] = []
    """The retention rules that applied (promotion only): the threshold the memory
    had to reach and why, and its evidence for a long-term tier."""

    def contributions(self) -> dict[str, float]:
        return {c.name: c.contribution for c in self.components}


class ImportanceScorer:
    """Scores memories with one preset; ``configure`` swaps weights atomically."""

    def __init__(self, preset: ScoringPreset | str = DEFAULT_PRESET) -> None:
        self._preset = PRESETS[preset] if isinstance(preset, str) else preset
        self._normalise()

    @property
    def preset(self) -> ScoringPreset:
        return self._preset

    def configure(self, **weights: float) -> None:
        """Change some weights; an invalid set leaves the scorer unchanged."""
        merged = {**self._preset.weights}
        for name, weight in weights.items():
            try:
                merged[Factor(name)] = weight
            except ValueError:
                field = f"weights.{name}"
                raise InvalidInputError(f"{field}: unknown factor", field=field) from None
        try:
            self._preset = self._preset.model_copy(
                update={"weights": ScoringPreset(name="check", weights=merged).weights}
            )
        except ValidationError as exc:
            raise invalid_input(exc) from None
        self._normalise()

    def _normalise(self) -> None:
        total = sum(self._preset.weights.values())
        self._weights = [(f, w / total) for f, w in self._preset.weights.items() if w > 0]
        self._fresh: dict[tuple[Any, ...], tuple[dict[str, float], float]] = {}

    def fresh_fields(
        self,
        memory_type: MemoryType | None,
        confidence: float,
        self_assessment: SelfAssessment | None,
        *,
        agent_decision: bool = False,
    ) -> dict[str, float]:
        """``stored_fields`` of a memory created this instant and never used.

        Such a memory scores on its type, confidence and self-assessment only,
        so everything but the confidence term is computed once per
        combination: bulk writes call this for every item.
        """
        key = (memory_type, self_assessment, agent_decision)
        cached = self._fresh.get(key)
        if cached is None:
            inputs = ScoreInputs(
                memory_type=memory_type,
                confidence=0.0,
                access_count=0,
                last_used_at=0.0,
                self_assessment=self_assessment,
                agent_decision=agent_decision,
            )
            base = self.stored_fields(inputs, 0.0)
            weight = 0.0 if agent_decision else dict(self._weights).get(Factor.CONFIDENCE, 0.0)
            cached = self._fresh[key] = (base, weight)
        base, weight = cached
        if not weight:
            return base
        fields = dict(base)
        fields["importance_confidence"] = weight * confidence
        fields["importance"] = _clamp(base["importance"] + weight * confidence)
        return fields

    def factor(self, factor: Factor, item: ScoreInputs, now: float) -> float:
        p = self._preset
        match factor:
            case Factor.RECENCY:
                minutes = max(0.0, now - item.last_used_at) / 60.0
                if p.recency_curve == "hyperbolic":
                    return 1.0 / (1.0 + minutes / p.recency_minutes)
                return math.exp(-minutes / p.recency_minutes)
            case Factor.FREQUENCY:
                count = max(0, item.access_count)
                if p.frequency_curve == "linear":
                    return min(count / p.frequency_cap, 1.0)
                return min(math.log1p(count) / math.log1p(p.frequency_cap), 1.0)
            case Factor.CONFIDENCE:
                return _clamp(item.confidence)
            case Factor.SALIENCE:
                return salience(item.memory_type)
            case Factor.SELF_ASSESSMENT:
                level = item.self_assessment or SelfAssessment.MEDIUM
                return SELF_ASSESSMENT_VALUE[SelfAssessment(level)]
            case Factor.FEEDBACK:
                return _clamp((item.feedback_mean + 1.0) / 2.0)

    def _contributions(
        self, item: ScoreInputs | Memory, now: float
    ) -> list[tuple[str, float, float]]:
        inputs = item if isinstance(item, ScoreInputs) else ScoreInputs.of(item)
        if inputs.agent_decision:
            return [(AGENT_DECISION, 1.0, 1.0)]
        return [(f.value, self.factor(f, inputs, now), w) for f, w in self._weights]

    def query_params(self) -> dict[str, Any]:
        """The preset as parameters of the Cypher scoring expression.

        Promotion and archival score inside the database so that only what
        moves is returned; the statements use these parameters and a test
        keeps their result equal to ``score``.
        """
        p = self._preset
        weights = dict.fromkeys((f.value for f in Factor), 0.0)
        weights.update({f.value: w for f, w in self._weights})
        return {
            "w": weights,
            "recency_exponential": p.recency_curve == "exponential",
            "recency_minutes": p.recency_minutes,
            "frequency_log": p.frequency_curve == "log",
            "frequency_cap": float(p.frequency_cap),
            "salience": {t.value: v for t, v in SALIENCE.items() if t is not None},
            "default_salience": DEFAULT_SALIENCE,
            "self_assessment": {level.value: v for level, v in SELF_ASSESSMENT_VALUE.items()},
        }

    def score(self, item: ScoreInputs | Memory, now: float) -> float:
        return _clamp(sum(value * w for _, value, w in self._contributions(item, now)))

    def score_with_breakdown(self, item: ScoreInputs | Memory, now: float) -> ImportanceBreakdown:
        components = [
            ScoreComponent(name=name, value=value, weight=w, contribution=value * w)
            for name, value, w in self._contributions(item, now)
        ]
        total = sum(c.contribution for c in components)
        return ImportanceBreakdown(
            preset=self._preset.name, total=_clamp(total), components=components
        )

    def stored_fields(self, item: ScoreInputs | Memory, now: float) -> dict[str, float]:
        """``importance`` and one ``importance_<factor>`` contribution per factor.

        Built without the breakdown models: bulk writes call this per item.
        """
        fields = {}
        total = 0.0
        for name, value, w in self._contributions(item, now):
            fields[f"importance_{name}"] = value * w
            total += value * w
        fields["importance"] = _clamp(total)
        return fields


def _clamp(value: float) -> float:
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value
