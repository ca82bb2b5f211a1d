"""The injection policy over random mixes of statuses, tiers and scores."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.domain.kinds import Status, Tier
from graphmem.domain.models import Memory
from graphmem.domain.policy import InjectionPolicy

memories = st.builds(
    lambda i, status, tier, superseded, score: (
        Memory(
            id=f"m{i}",
            project_id="p",
            session_id="s",
            content="x",
            status=status,
            tier=tier,
            superseded_by="newer" if superseded else None,
            created_at=1.0,
            updated_at=1.0,
        ),
        score,
    ),
    st.integers(0, 10_000),
    st.sampled_from(list(Status)),
    st.sampled_from(list(Tier)),
    st.booleans(),
    st.floats(0, 1),
)


def select(policy: InjectionPolicy, ranked, limit: int):
    return policy.select(ranked, memory=lambda r: r[0], score=lambda r: r[1], limit=limit)


@settings(max_examples=300)
@given(st.lists(memories, max_size=40), st.integers(1, 50))
def test_default_policy_never_injects_a_candidate_archived_or_superseded(ranked, limit):
    chosen = select(InjectionPolicy(), ranked, limit)
    assert len(chosen) <= limit
    for memory, _ in chosen:
        assert memory.status is Status.ACTIVE
        assert memory.tier is not Tier.ARCHIVED
        assert memory.superseded_by is None
    allowed = [r for r in ranked if InjectionPolicy().allows(r[0])]
    assert chosen == allowed[:limit], "keeps the ranking and fills up to the limit"


@settings(max_examples=300)
@given(st.lists(memories, max_size=40), st.integers(1, 50), st.integers(0, 3))
def test_candidate_slots_are_bounded_and_strict(ranked, limit, slots):
    policy = InjectionPolicy(candidate_slots=slots, candidate_min_score=0.8)
    chosen = select(policy, ranked, limit)
    candidates = [(m, s) for m, s in chosen if m.status is Status.CANDIDATE]
    assert len(candidates) <= slots
    assert all(s >= 0.8 and m.tier is not Tier.ARCHIVED for m, s in candidates)
    assert all(m.superseded_by is None for m, _ in chosen)
