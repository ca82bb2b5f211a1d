"""Importance scores as GraphQL shows them, factor by factor."""

from __future__ import annotations

import strawberry

from graphmem.domain.scoring import ImportanceBreakdown as DomainBreakdown


@strawberry.type(description="One component of an importance score.")
class ScoreComponent:
    name: str = strawberry.field(
        description="The factor: recency, frequency, confidence, salience, self_assessment "
        "or feedback; frequency counts accesses only (accessCount: recordAccess): neither "
        "being retrieved (retrievalCount) nor being remembered again (occurrenceCount) "
        "raises it."
    )
    value: float = strawberry.field(description="The factor on its own, in [0, 1].")
    weight: float = strawberry.field(description="Its normalised weight; weights sum to 1.")
    contribution: float = strawberry.field(description="value * weight; these sum to the total.")


@strawberry.type(description="An importance score, factor by factor, as of the request.")
class ImportanceBreakdown:
    preset: str
    total: float
    components: list[ScoreComponent]
    rules: list[str] = strawberry.field(
        description="Retention rules that bore on a promotion (threshold, time_decay, tag, "
        "evidence, agent_decision), each as 'rule: detail'; empty outside promotion."
    )

    @classmethod
    def of(cls, breakdown: DomainBreakdown) -> ImportanceBreakdown:
        return cls(
            preset=breakdown.preset,
            total=breakdown.total,
            components=[
                ScoreComponent(
                    name=c.name, value=c.value, weight=c.weight, contribution=c.contribution
                )
                for c in breakdown.components
            ],
            rules=[f"{note.rule}: {note.detail}" for note in breakdown.rules],
        )
