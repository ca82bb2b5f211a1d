"""The injection policy: what may enter an agent's context.

Every path that injects memories into a prompt (knowledgeContext, hook
injection) asks this one object, so "only trusted knowledge is injected" is
decided in one place. Listing and search do not use it: people reviewing the
store see candidates unless they ask not to.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from graphmem.domain.kinds import Status, Tier
from graphmem.domain.models import Memory

T = TypeVar("T")


@dataclass(frozen=True)
class InjectionPolicy:
    candidate_slots: int = 0
    """How many candidates may be injected (default none)."""
    candidate_min_score: float = 0.8
    """A candidate needs at least this score to take a slot."""

    def allows(self, memory: Memory) -> bool:
        """Trusted, live and current: active, not archived, not superseded."""
        return (
            memory.status is Status.ACTIVE
            and memory.tier is not Tier.ARCHIVED
            and memory.superseded_by is None
        )

    def select(
        self,
        ranked: Sequence[T],
        *,
        memory: Callable[[T], Memory],
        score: Callable[[T], float],
        limit: int,
    ) -> list[T]:
        """The injectable items of a ranked list, best first, at most ``limit``.

        Candidates fill at most ``candidate_slots`` places, and only above the
        stricter score; archived and superseded items never do.
        """
        chosen: list[T] = []
        slots = self.candidate_slots
        for item in ranked:
            if len(chosen) >= limit:
                break
            m = memory(item)
            if self.allows(m):
                chosen.append(item)
            elif (
                slots > 0
                and m.status is Status.CANDIDATE
                and m.tier is not Tier.ARCHIVED
                and m.superseded_by is None
                and score(item) >= self.candidate_min_score
            ):
                chosen.append(item)
                slots -= 1
        return chosen
