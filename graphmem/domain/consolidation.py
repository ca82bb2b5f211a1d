"""Consolidation, the pure part: which memories form a group, and what one
memory standing for the group says.

A project collects several memories about one thing: restatements written
with dedup off or worded too differently to merge on write, memories tied by
``RELATED_TO``, many small observations of one subject. Consolidation writes
one memory per group and supersedes the group with it (see
``graphmem.services.consolidator`` for the writes); this module decides, without I/O:

- **eligible**: active, live, current memories that are not rules (pinned,
  procedural types, the source of a ``CONSTRAINS`` edge) and not a failure
  capsule's lesson: those are kept exactly as written;
- **groups**: pairs joined strongest first: near by cosine and judged the
  same statement (or nearer still, ``related_similarity``, and only related),
  or tied by ``RELATED_TO``; within one memory type, and only when no member of one side
  contradicts a member of the other by ``restatement.judge`` (negation,
  changed value, other name, reversed preference): a contradiction or an
  update is never folded into agreement. A group stops at ``max_group_size``;
- **the statement**: the group's most central member (highest mean similarity
  to the others) word for word, then each sentence of the others that adds a
  content word the text so far lacks (so what a member said stays findable),
  to ``max_summary_chars``; how often and between which dates it was seen goes
  to its evidence, the members' rationales to its rationale;
- **the fingerprint**: member ids with their ``updated_at`` and the counts
  written without it, so a group that changed between a dry run and its
  apply is recognised and skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.domain.checks import MAX_EVIDENCE_ITEMS, MAX_RATIONALE_CHARS
from graphmem.domain.clock import as_datetime
from graphmem.domain.kinds import MemoryType, SelfAssessment, Status, SuggestedBy, Tier, Visibility
from graphmem.domain.lifecycle import PROCEDURAL_TYPES
from graphmem.domain.models import Memory
from graphmem.domain.restatement import judge, judge_events
from graphmem.domain.restatement.analysis import analyse
from graphmem.domain.restatement.verdicts import (
    Difference,
    Judgement,
    RestatementThresholds,
    Verdict,
)
from graphmem.domain.results import Group
from graphmem.domain.retention import Consolidation

GROUPABLE_TIERS = frozenset({Tier.WORKING, Tier.EPISODIC, Tier.SEMANTIC})
"""Procedural memories are rules; archived ones are already out of the way."""
KEEP_APART = frozenset({Verdict.CONFLICT, Verdict.SUPERSEDE})
"""Verdicts that keep two memories out of one group."""
ARCHIVE_PREFIX = "consolidated into "
ARCHIVE_REASON = ARCHIVE_PREFIX + "{id}"
"""The archive reason of each source; ``restore`` brings a source back."""
FINGERPRINT_PATTERN = re.compile(r"[0-9a-f]{16}")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_FRAMING = re.compile(r"^\s*(?:[\w'-]+\s+){0,2}[\w'-]+:\s+|\s*\([^()]*\)")
"""A leading label ("Reminder:", "Noted once more:") or a remark in parentheses:
how a restatement is framed, not what it adds."""
_ASSESSMENT_RANK = {SelfAssessment.LOW: 0, SelfAssessment.MEDIUM: 1, SelfAssessment.HIGH: 2}
_TIER_RANK = {Tier.WORKING: 0, Tier.EPISODIC: 1, Tier.SEMANTIC: 2, Tier.PROCEDURAL: 3}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory as consolidation reads it, with the graph facts that exclude it."""

    memory: Memory
    constrains: bool = False
    """The source of a ``CONSTRAINS`` edge: a rule for other memories."""
    taught: bool = False
    """The lesson of a failure capsule, which points at it."""


def eligible(candidate: Candidate) -> bool:
    m = candidate.memory
    return (
        m.status is Status.ACTIVE
        and m.tier in GROUPABLE_TIERS
        and m.superseded_by is None
        and m.conflicts_with is None
        and not m.pinned
        and m.memory_type not in PROCEDURAL_TYPES
        and not candidate.constrains
        and not candidate.taught
    )


def version(m: Memory) -> dict[str, object]:
    """What must not change between reading a member and consolidating it: its
    last write, and the counts that are written without touching ``updated_at``."""
    return {
        "id": m.id,
        "updated_at": m.updated_at,
        "access_count": m.access_count,
        "feedback_count": m.feedback_count,
        "occurrence_count": m.occurrence_count,
    }


def fingerprint(members: Iterable[Memory]) -> str:
    """What a group was when it was read: its members and their versions."""
    text = "\n".join(sorted(repr(sorted(version(m).items())) for m in members))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass
class _Components:
    """Union-find over memory ids, each component kept with its members."""

    members: dict[str, list[str]] = field(default_factory=dict)
    root: dict[str, str] = field(default_factory=dict)

    def find(self, node: str) -> str:
        root = self.root.setdefault(node, node)
        if root != node:
            root = self.root[node] = self.find(root)
        return root

    def group(self, node: str) -> list[str]:
        return self.members.setdefault(self.find(node), [node])

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        small, large = sorted((ra, rb), key=lambda r: len(self.group(r)))
        self.members[large] = self.group(large) + self.group(small)
        del self.members[small]
        self.root[small] = large


def find_groups(
    candidates: Sequence[Candidate],
    similar: Iterable[tuple[str, str, float]],
    related: Iterable[tuple[str, str]],
    rules: Consolidation,
    thresholds: RestatementThresholds | None = None,
) -> list[Group]:
    """Groups of at least ``min_group_size`` eligible memories, largest first.

    ``similar`` holds ``(id, other id, cosine)`` pairs from the vector index
    (either order, repeats allowed), ``related`` the ``RELATED_TO`` pairs.
    Pairs are joined strongest first (a ``RELATED_TO`` link counts as the
    lowest similarity that groups), so each memory lands with its nearest.
    """
    by_id = {c.memory.id: c.memory for c in candidates if eligible(c)}
    cosine = _cosines(similar, by_id, rules)
    pairs = _Pairs(by_id, cosine, _links(related, by_id, rules), rules, thresholds)
    components = _Components()
    for (a, b), score in pairs.strongest_first():
        if pairs.joinable(components, a, b, score):
            components.join(a, b)
    return pairs.groups(components)


def _pair(a: str, b: str) -> tuple[str, str]:
    """A pair of ids in one order, so either order names the same pair."""
    return (a, b) if a < b else (b, a)


def _cosines(
    similar: Iterable[tuple[str, str, float]], by_id: Mapping[str, Memory], rules: Consolidation
) -> dict[tuple[str, str], float]:
    """The highest cosine of each pair of eligible memories close enough to group."""
    cosine: dict[tuple[str, str], float] = {}
    for a, b, score in similar:
        if a != b and a in by_id and b in by_id and score >= rules.similarity:
            key = _pair(a, b)
            cosine[key] = max(score, cosine.get(key, 0.0))
    return cosine


def _links(
    related: Iterable[tuple[str, str]], by_id: Mapping[str, Memory], rules: Consolidation
) -> set[tuple[str, str]]:
    """The ``RELATED_TO`` pairs of eligible memories, when the rules group by them."""
    if not rules.related_to:
        return set()
    return {_pair(a, b) for a, b in related if a != b and a in by_id and b in by_id}


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The eligible memories and the pairs that may join them: what each step
    of ``find_groups`` reads."""

    by_id: dict[str, Memory]
    cosine: dict[tuple[str, str], float]
    linked: set[tuple[str, str]]
    rules: Consolidation
    thresholds: RestatementThresholds | None

    def strongest_first(self) -> list[tuple[tuple[str, str], float]]:
        """Every pair with its score, a link scoring the lowest similarity that
        groups (a cosine of the same pair wins), highest first."""
        scored = {**{k: self.rules.similarity for k in self.linked}, **self.cosine}
        return sorted(scored.items(), key=lambda item: (-item[1], item[0]))

    def joinable(self, components: _Components, a: str, b: str, score: float) -> bool:
        """Whether the pair may join its two components: comparable memories in
        different components, saying the same thing, within the size limit, and
        with no member of one side contradicting a member of the other."""
        left, right = self.by_id[a], self.by_id[b]
        if not _comparable(left, right) or components.find(a) == components.find(b):
            return False
        if (a, b) not in self.linked and not self._same_statement(left, right, score):
            return False
        ga, gb = components.group(a), components.group(b)
        if len(ga) + len(gb) > self.rules.max_group_size:
            return False
        return not any(self._apart(x, y) for x in ga for y in gb)

    def _same_statement(self, left: Memory, right: Memory, score: float) -> bool:
        """For a pair found by the index only: two events merge only when judged
        one happening; other memories below ``related_similarity`` only when one
        restates the other."""
        if left.memory_type is MemoryType.EVENT:
            apart = left.occurred - right.occurred
            same = judge_events(left.content, right.content, apart, thresholds=self.thresholds)
            return same.verdict is Verdict.MERGE  # else two things that happened, however alike
        if score < self.rules.related_similarity:
            judged = judge(left.content, right.content, score, thresholds=self.thresholds)
            return _restates(judged)  # else related, not the same statement, not close enough
        return True

    def _apart(self, x: str, y: str) -> bool:
        return _apart(self.by_id[x], self.by_id[y], self.cosine, self.thresholds)

    def groups(self, components: _Components) -> list[Group]:
        """The components of at least ``min_group_size``, each with the pairs
        inside it, largest first."""
        touching: dict[str, list[tuple[str, str]]] = {}
        for key in (*self.cosine, *self.linked):
            touching.setdefault(key[0], []).append(key)
        groups = [
            self._group(ids, touching)
            for ids in components.members.values()
            if len(ids) >= self.rules.min_group_size
        ]
        groups.sort(key=lambda g: (-len(g.members), g.central.id))
        return groups

    def _group(self, ids: list[str], touching: Mapping[str, list[tuple[str, str]]]) -> Group:
        inside = set(ids)
        keys = {k for i in ids for k in touching.get(i, ()) if k[1] in inside}
        members = [self.by_id[i] for i in ids]
        inner = {k: self.cosine[k] for k in keys if k in self.cosine}
        return _group(members, inner, keys & self.linked, self.rules)


def _comparable(left: Memory, right: Memory) -> bool:
    """Only memories of one type and one audience are consolidated together."""
    return left.memory_type == right.memory_type and audience(left) == audience(right)


def audience(m: Memory) -> str | None:
    """Who sees a memory: ``None`` for the whole project, else the one agent it is
    private to. Only memories of one audience are consolidated together, so no
    agent's private wording reaches a memory that others see."""
    return m.agent_id if m.visibility is Visibility.PRIVATE else None


def _restates(judged: Judgement) -> bool:
    """The same statement, or one that says all another says and more: the
    consolidated memory keeps the addition (``summarise``)."""
    return judged.verdict is Verdict.MERGE or judged.difference is Difference.ADDED


def _apart(
    a: Memory,
    b: Memory,
    cosine: Mapping[tuple[str, str], float],
    thresholds: RestatementThresholds | None,
) -> bool:
    """Whether one text contradicts or updates the other (a flipped negation, a
    changed value, another name, a swapped term): the restatement check with the
    pair's cosine, or by word overlap where the index gave none (a pair joined
    through others, or by ``RELATED_TO``)."""
    if a.content == b.content:
        return False
    key = _pair(a.id, b.id)
    if key in cosine:
        judged = judge(a.content, b.content, cosine[key], thresholds=thresholds)
    else:
        judged = judge(a.content, b.content, 1.0, measure="jaccard", thresholds=thresholds)
    return judged.verdict in KEEP_APART


def _group(
    members: list[Memory],
    cosine: Mapping[tuple[str, str], float],
    linked: set[tuple[str, str]],
    rules: Consolidation,
) -> Group:
    """``cosine`` and ``linked`` hold the pairs inside the group only."""

    def similarity(a: Memory, b: Memory) -> float:
        key = _pair(a.id, b.id)
        if key in cosine:
            return cosine[key]
        sa, sb = analyse(a.content).stems, analyse(b.content).stems
        return len(sa & sb) / len(sa | sb) if sa | sb else 1.0

    def centrality(m: Memory) -> tuple[float, int, float, str]:
        mean = sum(similarity(m, o) for o in members if o is not m) / (len(members) - 1)
        return (-mean, -m.occurrence_count, m.created_at, m.id)

    ordered = sorted(members, key=centrality)
    scores = list(cosine.values())
    links = len(linked)
    parts = []
    if scores:
        parts.append(f"cosine {min(scores):.3f}-{max(scores):.3f}")
    if links:
        parts.append(f"{links} RELATED_TO link{'s' if links > 1 else ''}")
    kind = ordered[0].memory_type.value if ordered[0].memory_type else "untyped"
    reason = f"{len(members)} {kind} memories: " + ", ".join(parts)
    return Group(
        members=ordered,
        fingerprint=fingerprint(ordered),
        reason=reason,
        content=summarise(ordered, max_chars=rules.max_summary_chars),
        seen=seen(ordered),
    )


def summarise(members: Sequence[Memory], *, max_chars: int) -> str:
    """The central statement (``members[0]``) and what the others add: extractive,
    so every word was written by someone."""
    central = members[0]
    covered = set(analyse(central.content).stems)
    added: list[str] = []
    budget = max_chars - len(central.content)
    for other in members[1:]:
        for sentence in _SENTENCE.split(other.content.strip()):
            sentence = sentence.strip().rstrip(".;")
            stems = analyse(_FRAMING.sub(" ", sentence)).stems
            new = stems - covered
            if not new:
                continue
            if len(sentence) + 2 > budget:
                continue
            added.append(sentence)
            covered |= stems
            budget -= len(sentence) + 2
    text = central.content.strip()
    if added:
        text = f"{text.rstrip('.')}. Also: " + "; ".join(added) + "."
    return text


def seen(members: Sequence[Memory]) -> str:
    """How often and when: ``seen 5 times between 2026-03-01 and 2026-04-02,
    consolidated from 3 memories``."""
    times = sum(m.occurrence_count for m in members)
    first = min(m.occurred for m in members)
    last = max(max(m.occurred, m.last_seen or m.occurred) for m in members)
    day_first, day_last = _day(first), _day(last)
    when = f"on {day_first}" if day_first == day_last else f"between {day_first} and {day_last}"
    return f"seen {times} times {when}, consolidated from {len(members)} memories"


def rationale(members: Sequence[Memory]) -> str | None:
    """The members' distinct rationales, central first, within the rationale limit."""
    found = list(dict.fromkeys(m.rationale.strip() for m in members if m.rationale))
    text = "; ".join(found)[:MAX_RATIONALE_CHARS]
    return text or None


def _day(epoch: float) -> str:
    return as_datetime(epoch).strftime("%Y-%m-%d")


def merged_fields(members: Sequence[Memory]) -> dict[str, object]:
    """The evidence of the group, as the consolidated memory carries it: counts
    summed, the highest confidence, self-assessment and tier, the earliest and
    latest times; the importance scorer reads these."""
    fields: dict[str, object] = {
        "tier": max((m.tier for m in members), key=lambda t: _TIER_RANK[t]).value,
        "confidence": max(m.confidence for m in members),
        "occurrence_count": sum(m.occurrence_count for m in members),
        "access_count": sum(m.access_count for m in members),
        "feedback": sum(m.feedback for m in members),
        "feedback_count": sum(m.feedback_count for m in members),
        "tags": list(dict.fromkeys(t for m in members for t in m.tags)),
        "evidence": _evidence(members),
        "occurred_at": min(m.occurred for m in members),
        "last_seen": max(m.last_seen or m.occurred for m in members),
    }
    optional = _optional_fields(members)
    fields.update({k: v for k, v in optional.items() if v is not None})
    return fields


def _evidence(members: Sequence[Memory]) -> list[str]:
    """How often and when the group was seen, then each member's evidence once."""
    found = dict.fromkeys([seen(members), *(e for m in members for e in m.evidence)])
    return list(found)[:MAX_EVIDENCE_ITEMS]


def _optional_fields(members: Sequence[Memory]) -> dict[str, object | None]:
    """The fields no member may have set: ``None`` where none has, so the
    consolidated memory leaves them out."""
    agent = any(m.suggested_by is SuggestedBy.AGENT for m in members)
    assessed = [m.self_assessment for m in members if m.self_assessment is not None]
    return {
        # an agent's "remember this" holds
        "suggested_by": SuggestedBy.AGENT.value if agent else None,
        "self_assessment": (
            max(assessed, key=_ASSESSMENT_RANK.__getitem__).value if assessed else None
        ),
        "promoted_at": _latest(m.promoted_at for m in members),
        "last_accessed_at": _latest(m.last_accessed_at for m in members),
    }


def _latest(times: Iterable[float | None]) -> float | None:
    """The latest of the times that are set, ``None`` when none is."""
    present = [t for t in times if t is not None]
    return max(present) if present else None
