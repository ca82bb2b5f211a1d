"""Where a memory goes next: the tier rules of promotion, archival and restore.

Pure functions, so the rules can be read (and tested) apart from the engine
that applies them.
"""

from __future__ import annotations

from graphmem.domain.kinds import MemoryType, Tier

SHORT_TERM = (Tier.WORKING, Tier.EPISODIC)
"""Tiers promotion evaluates; working moves on to episodic, episodic to semantic."""

PROCEDURAL_TYPES = frozenset({MemoryType.RULE, MemoryType.CONVENTION, MemoryType.CODING_STANDARD})
"""Types that describe how to work rather than what happened."""

_NEXT = {Tier.WORKING: Tier.EPISODIC, Tier.EPISODIC: Tier.SEMANTIC}


def promotion_target(
    tier: Tier, memory_type: MemoryType | None, *, pinned: bool, constrains: bool
) -> Tier | None:
    """The tier a promoted memory moves to, or ``None`` if it is not short-term.

    Pinned items, rules, conventions, coding standards and memories that
    constrain others are procedural knowledge: they go straight to the
    procedural tier, where nothing ages them out.
    """
    if tier not in _NEXT:
        return None
    if pinned or constrains or memory_type in PROCEDURAL_TYPES:
        return Tier.PROCEDURAL
    return _NEXT[tier]


def long_term_target(memory_type: MemoryType | None, *, pinned: bool) -> Tier:
    """Where an agent's explicit "remember this" lands at once."""
    if pinned or memory_type in PROCEDURAL_TYPES:
        return Tier.PROCEDURAL
    return Tier.SEMANTIC
