"""The kinds a memory, a relation, a session and a project's automatic links
take: enums every surface spells the same way, in any case.
"""

from __future__ import annotations

from enum import StrEnum


class AnyCaseEnum(StrEnum):
    """An enum that takes its values and names in any case: ``Decision``,
    ``DECISION`` and ``decision`` are one type, on the command line and in
    Python alike, as GraphQL spells them ``DECISION``."""

    @classmethod
    def _missing_(cls, value: object) -> AnyCaseEnum | None:
        if isinstance(value, str):
            folded = value.casefold()
            for member in cls:
                if folded in (member.value.casefold(), member.name.casefold()):
                    return member
        return None


class MemoryType(AnyCaseEnum):
    DECISION = "decision"
    ARCHITECTURAL_DECISION = "architectural_decision"
    CONVENTION = "convention"
    CODING_STANDARD = "coding_standard"
    LESSON_LEARNED = "lesson_learned"
    RISK = "risk"
    DISCOVERY = "discovery"
    FACT = "fact"
    HYPOTHESIS = "hypothesis"
    ASSUMPTION = "assumption"
    PREFERENCE = "preference"
    GOAL = "goal"
    ERROR_PATTERN = "error_pattern"
    RULE = "rule"
    EVENT = "event"
    """Something that happened or was said: a conversation turn, an observation
    (its ``occurred_at`` says when)."""


class Tier(AnyCaseEnum):
    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    ARCHIVED = "archived"


class Status(AnyCaseEnum):
    CANDIDATE = "candidate"
    ACTIVE = "active"


class RelationType(AnyCaseEnum):
    """The relation types between memories: the one list every surface, the
    explorer's palette and the Cypher statements that name them follow
    (tests/unit/test_relation_types.py compares them all with it)."""

    CONSTRAINS = "CONSTRAINS"
    ENABLES = "ENABLES"
    SUPERSEDES = "SUPERSEDES"
    RELATED_TO = "RELATED_TO"

    @property
    def statement(self) -> str:
        """The named statement that writes this relation: Cypher takes no
        relationship type as a parameter, so each type has its own."""
        return f"relate_{self.value.lower()}"


class Source(AnyCaseEnum):
    MANUAL = "manual"
    AGENT = "agent"
    AUTO_EXTRACTED = "auto_extracted"
    IMPORT = "import"
    CONSOLIDATED = "consolidated"
    """Written by consolidation from a group of memories it supersedes (never by a caller)."""


class SuggestedBy(AnyCaseEnum):
    IMPLICIT = "implicit"
    AGENT = "agent"


class SelfAssessment(AnyCaseEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Visibility(AnyCaseEnum):
    """Who of a project's agents sees a memory. A memory stored before graphmem
    kept visibility reads as shared, and a memory without an agent is always
    shared: it has no one to be private to."""

    PRIVATE = "private"
    """Only the agent that wrote it (and callers not bound to an agent)."""
    SHARED = "shared"
    """Every agent of the project."""


class SessionState(AnyCaseEnum):
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


def initial_status(source: Source) -> Status:
    """Auto-extracted items must earn trust; everything else starts trusted."""
    return Status.CANDIDATE if source is Source.AUTO_EXTRACTED else Status.ACTIVE


class AutoLink(AnyCaseEnum):
    """A relation graphmem writes itself, as ``RELATED_TO``, when a memory is
    stored in a project that turned it on (``ProjectSettings.auto_links``)."""

    PREVIOUS_TURN = "previous_turn"
    """To the latest earlier memory (by ``occurred_at``) of the same session."""
    SAME_ENTITY = "same_entity"
    """To the most recent memories naming the same entity (``graphmem.services.entities``)."""
