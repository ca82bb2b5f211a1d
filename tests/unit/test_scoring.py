"""The importance scorer, against seed 000's expectations."""

from __future__ import annotations

import math

import pytest

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.kinds import MemoryType, SelfAssessment
from graphmem.domain.scoring import (
    DEFAULT_SALIENCE,
    JARVIS_PRESET,
    Factor,
    ImportanceScorer,
    ScoreInputs,
    ScoringPreset,
    salience,
)

NOW = 1_800_000_000.0


def item(**overrides) -> ScoreInputs:
    values = {
        "memory_type": MemoryType.FACT,
        "confidence": 0.8,
        "access_count": 0,
        "last_used_at": NOW,
    }
    values.update(overrides)
    return ScoreInputs(**values)


def component(scorer: ImportanceScorer, inputs: ScoreInputs, name: str, now: float = NOW) -> float:
    breakdown = scorer.score_with_breakdown(inputs, now)
    return next(c.value for c in breakdown.components if c.name == name)


class TestRecency:
    def test_just_accessed_is_one(self):
        assert component(ImportanceScorer(), item(), "recency") == 1.0

    def test_thirty_minutes_is_half(self):
        value = component(ImportanceScorer(), item(last_used_at=NOW - 30 * 60), "recency")
        assert value == pytest.approx(0.5)

    def test_sixty_minutes_is_a_third(self):
        value = component(ImportanceScorer(), item(last_used_at=NOW - 60 * 60), "recency")
        assert value == pytest.approx(1 / 3)

    def test_a_future_timestamp_does_not_exceed_one(self):
        assert component(ImportanceScorer(), item(last_used_at=NOW + 600), "recency") == 1.0


class TestFrequency:
    @pytest.mark.parametrize(("count", "expected"), [(0, 0.0), (5, 0.5), (10, 1.0), (250, 1.0)])
    def test_linear_and_capped_at_ten(self, count, expected):
        assert component(ImportanceScorer(), item(access_count=count), "frequency") == expected


class TestSalience:
    @pytest.mark.parametrize(
        ("memory_type", "expected"),
        [
            (MemoryType.DECISION, 1.0),
            (MemoryType.ARCHITECTURAL_DECISION, 1.0),
            (MemoryType.CONVENTION, 1.0),
            (MemoryType.CODING_STANDARD, 1.0),
            (MemoryType.LESSON_LEARNED, 1.0),
            (MemoryType.RISK, 1.0),
            (MemoryType.DISCOVERY, 0.8),
            (MemoryType.FACT, 0.7),
            (MemoryType.HYPOTHESIS, 0.5),
            (MemoryType.ASSUMPTION, 0.4),
            (None, 0.3),
        ],
    )
    def test_table(self, memory_type, expected):
        assert salience(memory_type) == expected
        assert component(ImportanceScorer(), item(memory_type=memory_type), "salience") == expected

    def test_unknown_type_gets_the_default(self):
        assert salience("something_new") == DEFAULT_SALIENCE == 0.3


class TestTotal:
    def test_default_formula(self):
        inputs = item(
            memory_type=MemoryType.DISCOVERY,
            confidence=0.6,
            access_count=4,
            last_used_at=NOW - 15 * 60,
        )
        expected = 0.2 * (1 / 1.5) + 0.3 * 0.4 + 0.25 * 0.6 + 0.25 * 0.8
        assert ImportanceScorer().score(inputs, NOW) == pytest.approx(expected)

    @pytest.mark.parametrize("minutes", [0, 7, 45, 600])
    @pytest.mark.parametrize("count", [0, 3, 40])
    def test_breakdown_components_sum_to_total(self, minutes, count):
        scorer = ImportanceScorer()
        breakdown = scorer.score_with_breakdown(
            item(access_count=count, last_used_at=NOW - minutes * 60), NOW
        )
        assert sum(c.contribution for c in breakdown.components) == pytest.approx(breakdown.total)
        assert breakdown.total == pytest.approx(
            scorer.score(item(access_count=count, last_used_at=NOW - minutes * 60), NOW)
        )
        assert {c.name for c in breakdown.components} == {
            "recency",
            "frequency",
            "confidence",
            "salience",
        }

    def test_stored_fields_match_the_breakdown(self):
        scorer = ImportanceScorer()
        inputs = item(access_count=3, last_used_at=NOW - 100)
        fields = scorer.stored_fields(inputs, NOW)
        breakdown = scorer.score_with_breakdown(inputs, NOW)
        assert fields["importance"] == pytest.approx(breakdown.total)
        for c in breakdown.components:
            assert fields[f"importance_{c.name}"] == pytest.approx(c.contribution)

    def test_recency_decay_lowers_the_score_over_time(self):
        scorer = ImportanceScorer()
        inputs = item(last_used_at=NOW)
        assert scorer.score(inputs, NOW + 3600) < scorer.score(inputs, NOW)


class TestConfigure:
    def test_configure_changes_weights(self):
        scorer = ImportanceScorer()
        inputs = item(access_count=0, confidence=1.0, last_used_at=NOW - 30 * 60)
        before = scorer.score(inputs, NOW)
        scorer.configure(recency=0.0, frequency=0.0, confidence=1.0, salience=0.0)
        assert scorer.score(inputs, NOW) == pytest.approx(1.0)
        assert before != pytest.approx(1.0)

    def test_weights_are_normalised_by_their_sum(self):
        scorer = ImportanceScorer()
        scorer.configure(recency=2.0, frequency=0.0, confidence=2.0, salience=0.0)
        weights = {c.name: c.weight for c in scorer.score_with_breakdown(item(), NOW).components}
        assert weights == {"recency": 0.5, "confidence": 0.5}

    @pytest.mark.parametrize(
        "weights",
        [
            {"recency": -0.1},
            {"recency": 0.0, "frequency": 0.0, "confidence": 0.0, "salience": 0.0},
            {"recency": math.nan},
            {"novelty": 0.5},
        ],
    )
    def test_invalid_weights_are_rejected_and_leave_the_scorer_unchanged(self, weights):
        scorer = ImportanceScorer()
        before = scorer.preset.weights
        with pytest.raises(InvalidInputError) as error:
            scorer.configure(**weights)
        assert "weights" in str(error.value) or "weight" in str(error.value)
        assert scorer.preset.weights == before

    def test_preset_rejects_negative_weight(self):
        with pytest.raises(ValueError, match="recency"):
            ScoringPreset(name="bad", weights={Factor.RECENCY: -1})


class TestJarvis:
    def test_weights_and_shape(self):
        scorer = ImportanceScorer("jarvis")
        assert scorer.preset is JARVIS_PRESET
        inputs = item(
            access_count=100,
            last_used_at=NOW,
            self_assessment=SelfAssessment.HIGH,
            feedback_mean=1.0,
        )
        assert scorer.score(inputs, NOW) == pytest.approx(0.4 + 0.3 + 0.2 * 0.9 + 0.1)

    def test_exponential_recency_and_log_access(self):
        scorer = ImportanceScorer("jarvis")
        one_day = item(last_used_at=NOW - 24 * 3600, access_count=9)
        assert component(scorer, one_day, "recency") == pytest.approx(math.exp(-1))
        assert component(scorer, one_day, "frequency") == pytest.approx(
            math.log(10) / math.log(101)
        )

    @pytest.mark.parametrize(
        ("level", "expected"),
        [
            (SelfAssessment.LOW, 0.3),
            (SelfAssessment.MEDIUM, 0.6),
            (SelfAssessment.HIGH, 0.9),
            (None, 0.6),
        ],
    )
    def test_self_assessment(self, level, expected):
        value = component(
            ImportanceScorer("jarvis"), item(self_assessment=level), "self_assessment"
        )
        assert value == expected

    @pytest.mark.parametrize(("mean", "expected"), [(-1.0, 0.0), (0.0, 0.5), (1.0, 1.0)])
    def test_feedback_mapped_to_unit_interval(self, mean, expected):
        value = component(ImportanceScorer("jarvis"), item(feedback_mean=mean), "feedback")
        assert value == expected

    def test_total_is_clamped(self):
        scorer = ImportanceScorer("jarvis")
        breakdown = scorer.score_with_breakdown(item(feedback_mean=5.0, access_count=10**6), NOW)
        assert 0.0 <= breakdown.total <= 1.0
