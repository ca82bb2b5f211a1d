"""The consistency checks: pure functions from a snapshot to findings.

Each check reads the networkx graph of one project (see ``Snapshot``) and
returns findings with a stable code, a severity, the memories involved, a
message saying what is wrong and a fix saying what to do about it. Nothing
here touches the store, so every check is tested on hand-built graphs.

Severities: ``error`` is data the lifecycle can never produce and that breaks
reads (a cycle, a value out of range, a reference to nothing); ``warning`` is
a state that makes the agent see the wrong thing (an old version served, a
conflict, a stale score); ``info`` is work a scheduled job has not done yet.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import networkx as nx

from graphmem.domain.consolidation import ARCHIVE_PREFIX as CONSOLIDATED_INTO
from graphmem.domain.lifecycle import PROCEDURAL_TYPES, SHORT_TERM
from graphmem.domain.models import MemoryType, RelationType, Source, Status, Tier
from graphmem.domain.restatement import Judgement, Verdict, judge, judge_events
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import Factor, ImportanceScorer, ScoreInputs
from graphmem.services.evaluator.snapshot import NearPair, Snapshot


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.INFO: 1}


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    memory_ids: tuple[str, ...]
    message: str
    fix: str
    fixable: bool = False
    """``graphmem evaluate --fix`` repairs it safely (see ``graphmem.services.evaluator.fixes``)."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Machine-readable facts behind the message (values compared, the cycle's order)."""

    def sort_key(self) -> tuple[int, str, tuple[str, ...]]:
        return (-self.severity.rank, self.code, self.memory_ids)


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What the checks compare the graph with: one clock reading, the scorer and the rules."""

    now: float
    scorer: ImportanceScorer
    rules: RetentionRules
    importance_tolerance: float = 1e-3
    overdue_after_seconds: float = 7_200.0
    """How long an item may wait for a scheduled job before it is reported as overdue."""
    scores: Scores = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", Scores(self.scorer))


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


LIVE_TIERS = frozenset(t.value for t in Tier if t is not Tier.ARCHIVED)
_TIERS = frozenset(t.value for t in Tier)
_STATUSES = frozenset(s.value for s in Status)
_SHORT_TERM = frozenset(t.value for t in SHORT_TERM)
_PROCEDURAL_TYPES = frozenset(t.value for t in PROCEDURAL_TYPES)
SUPERSEDES = RelationType.SUPERSEDES.value
CONSTRAINS = RelationType.CONSTRAINS.value
ENABLES = RelationType.ENABLES.value
CONSOLIDATED = Source.CONSOLIDATED.value


@dataclass(frozen=True, slots=True)
class CodeInfo:
    severity: Severity
    title: str


CODES: dict[str, CodeInfo] = {
    "SUPERSEDES_SELF": CodeInfo(Severity.ERROR, "a memory supersedes itself"),
    "SUPERSEDES_CYCLE": CodeInfo(Severity.ERROR, "SUPERSEDES edges form a cycle"),
    "SUPERSESSION_INVERTED": CodeInfo(
        Severity.WARNING, "a superseded memory is served while its successor is not"
    ),
    "SUPERSESSION_FORKED": CodeInfo(
        Severity.WARNING, "two memories supersede the same one independently"
    ),
    "SUPERSEDED_BY_MISMATCH": CodeInfo(
        Severity.WARNING, "superseded_by disagrees with the SUPERSEDES edges"
    ),
    "RELATION_CONFLICT": CodeInfo(Severity.WARNING, "a pair both CONSTRAINS and ENABLES"),
    "CONSTRAINS_CYCLE": CodeInfo(
        Severity.WARNING, "procedural rules constrain each other in a cycle"
    ),
    "NEAR_DUPLICATE": CodeInfo(Severity.WARNING, "two active memories say the same thing"),
    "CONSOLIDATION_PROVENANCE": CodeInfo(
        Severity.WARNING, "a consolidated memory and its sources disagree"
    ),
    "IMPORTANCE_OUT_OF_RANGE": CodeInfo(Severity.ERROR, "importance missing or outside [0, 1]"),
    "CONFIDENCE_OUT_OF_RANGE": CodeInfo(Severity.ERROR, "confidence missing or outside [0, 1]"),
    "IMPORTANCE_STALE": CodeInfo(
        Severity.WARNING, "stored importance differs from a recomputation"
    ),
    "PINNED_NOT_PROCEDURAL": CodeInfo(
        Severity.WARNING, "a pinned memory is not procedural and active"
    ),
    "ARCHIVED_WITHOUT_TIMESTAMP": CodeInfo(Severity.ERROR, "archived without archived_at"),
    "LIFECYCLE_INVALID": CodeInfo(
        Severity.ERROR, "a tier/status combination the lifecycle forbids"
    ),
    "PROMOTION_LOG_MISMATCH": CodeInfo(
        Severity.WARNING, "the promotion log disagrees with the current tier"
    ),
    "DANGLING_REFERENCE": CodeInfo(Severity.ERROR, "a reference to a memory that does not exist"),
    "CROSS_PROJECT_RELATION": CodeInfo(Severity.ERROR, "a relation to another project's memory"),
    "ORPHAN_MEMORY": CodeInfo(Severity.WARNING, "a live memory outside any session of its project"),
    "PROMOTION_OVERDUE": CodeInfo(Severity.INFO, "promotion should have moved this memory"),
    "ARCHIVAL_OVERDUE": CodeInfo(Severity.INFO, "archival should have moved this memory"),
}
"""Every code a report can contain, with its severity; codes never change meaning."""

Check = Callable[[Snapshot, CheckContext], Iterable[Finding]]


def finding(
    code: str,
    memory_ids: Iterable[str],
    message: str,
    fix: str,
    *,
    fixable: bool = False,
    details: Mapping[str, Any] | None = None,
) -> Finding:
    return Finding(
        code=code,
        severity=CODES[code].severity,
        memory_ids=tuple(sorted(set(memory_ids))),
        message=message,
        fix=fix,
        fixable=fixable,
        details=dict(details or {}),
    )


def _typed(snap: Snapshot, relation: str) -> nx.DiGraph:
    """The simple directed graph of one relation type."""
    typed: nx.DiGraph[str] = nx.DiGraph()
    typed.add_edges_from(snap.edges_of_type(relation))
    return typed


def _live(attrs: Mapping[str, Any]) -> bool:
    return (attrs.get("tier") or Tier.WORKING.value) in LIVE_TIERS


def _served(attrs: Mapping[str, Any]) -> bool:
    """Active in a live tier: what injection paths hand to an agent."""
    return _live(attrs) and (attrs.get("status") or Status.ACTIVE.value) == Status.ACTIVE.value


def _cycle_order(graph: nx.DiGraph, members: set[str]) -> list[str]:
    cycle = nx.find_cycle(graph.subgraph(members))
    return [u for u, _ in cycle]


# -- supersession ------------------------------------------------------------


def check_supersession_cycles(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    supersedes = _typed(snap, SUPERSEDES)
    for node, _ in nx.selfloop_edges(supersedes):
        yield finding(
            "SUPERSEDES_SELF",
            [node],
            f"memory {node} supersedes itself, so no version of it is current",
            "delete the self-referencing SUPERSEDES edge and clear superseded_by",
        )
    supersedes.remove_edges_from(list(nx.selfloop_edges(supersedes)))
    for members in nx.strongly_connected_components(supersedes):
        if len(members) < 2:
            continue
        order = _cycle_order(supersedes, members)
        chain = " -> ".join([*order, order[0]])
        yield finding(
            "SUPERSEDES_CYCLE",
            members,
            f"SUPERSEDES cycle {chain}: every memory in it is superseded, none is current",
            "decide which memory is the current one and delete the SUPERSEDES edge into it",
            details={"cycle": order},
        )


def check_inverted_supersession(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    successors: dict[str, list[str]] = defaultdict(list)
    for new, old in snap.edges_of_type(SUPERSEDES):
        if new != old:
            successors[old].append(new)
    nodes = snap.graph.nodes
    for old, news in successors.items():
        if not _served(nodes[old]) or any(_served(nodes[new]) for new in news):
            continue
        states = ", ".join(
            f"{new} is {'archived' if not _live(nodes[new]) else 'a candidate'}"
            for new in sorted(news)
        )
        yield finding(
            "SUPERSESSION_INVERTED",
            [old, *news],
            f"memory {old} is superseded but still served as active while its successor "
            f"is not ({states}): agents see the outdated version",
            "approve or restore the successor, or archive the superseded memory",
        )


def check_forked_supersession(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    supersedes = _typed(snap, SUPERSEDES)
    supersedes.remove_edges_from(list(nx.selfloop_edges(supersedes)))
    for old in supersedes.nodes:
        news = sorted(supersedes.predecessors(old))
        if len(news) < 2:
            continue
        independent = [
            (a, b)
            for i, a in enumerate(news)
            for b in news[i + 1 :]
            if not nx.has_path(supersedes, a, b) and not nx.has_path(supersedes, b, a)
        ]
        if independent:
            yield finding(
                "SUPERSESSION_FORKED",
                [old, *news],
                f"memory {old} is superseded by {', '.join(news)}, and none of these "
                "supersedes the others: there are competing current versions",
                "supersede one successor by the other (or merge them)",
                details={"superseded": old, "successors": news},
            )


def check_superseded_by(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """``superseded_by`` is what reads use to skip old versions; it must match the edges."""
    graph = snap.graph
    successors: dict[str, set[str]] = defaultdict(set)
    for new, old in snap.edges_of_type(SUPERSEDES):
        if new != old:
            successors[old].add(new)
    for node, attrs in graph.nodes(data=True):
        recorded = attrs.get("superseded_by")
        news = successors.get(node, set())
        if recorded is None and news:
            message = f"memory {node} is superseded by {', '.join(sorted(news))} but its "
            message += "superseded_by is empty, so reads still treat it as current"
        elif recorded is not None and recorded in graph and recorded not in news:
            message = f"memory {node} names {recorded} in superseded_by, but {recorded} has "
            message += "no SUPERSEDES edge to it"
        else:
            continue
        yield finding(
            "SUPERSEDED_BY_MISMATCH",
            [node, *news, *([recorded] if recorded is not None and recorded in graph else [])],
            message,
            "run supersede(old, new) again for the intended successor, which sets both",
        )


# -- relations ---------------------------------------------------------------


def check_relation_conflicts(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    both = set(snap.edges_of_type(CONSTRAINS)) & set(snap.edges_of_type(ENABLES))
    for u, v in sorted(both):
        yield finding(
            "RELATION_CONFLICT",
            [u, v],
            f"memory {u} both CONSTRAINS and ENABLES {v}",
            "keep the relation that holds and delete the other",
            details={"from": u, "to": v},
        )


def check_constrains_cycles(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    nodes = snap.graph.nodes
    procedural = {
        n
        for n, attrs in nodes(data=True)
        if _live(attrs)
        and (
            attrs.get("tier") == Tier.PROCEDURAL.value
            or attrs.get("memory_type") in _PROCEDURAL_TYPES
        )
    }
    constrains = _typed(snap, CONSTRAINS).subgraph(procedural).copy()
    for members in nx.strongly_connected_components(constrains):
        if len(members) == 1:
            (only,) = members
            if not constrains.has_edge(only, only):
                continue
        order = _cycle_order(constrains, members)
        chain = " -> ".join([*order, order[0]])
        yield finding(
            "CONSTRAINS_CYCLE",
            members,
            f"procedural rules constrain each other in a cycle ({chain}): "
            "no rule in it can be applied first",
            "remove the CONSTRAINS edge that does not hold, or merge the rules",
            details={"cycle": order},
        )


def check_near_duplicates(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """Two served memories that say the same thing, by the judgment a write
    makes (``graphmem.domain.restatement``): close vectors alone are not enough ("pool
    size is 20" and "pool size is 40" are an update, not a duplicate), and a
    memory another supersedes is not served."""
    if snap.near_duplicates is None:
        return
    nodes = snap.graph.nodes
    seen: set[tuple[str, str]] = set()
    for near in snap.near_duplicates:
        a, b = near.id, near.other
        pair = (a, b) if a < b else (b, a)
        if pair in seen or a not in nodes or b not in nodes:
            continue
        seen.add(pair)
        if not (_current(nodes[a]) and _current(nodes[b])) or _supersedes(snap, a, b):
            continue
        judged = _same_statement(nodes[a], nodes[b], near, ctx)
        if judged.verdict is not Verdict.MERGE:
            continue
        yield finding(
            "NEAR_DUPLICATE",
            pair,
            f"memories {pair[0]} and {pair[1]} say the same thing (cosine "
            f"{near.similarity:.3f}; {judged.reason}) and both are served",
            f"fold them into one: graphmem consolidate --project {snap.project_id} "
            "(--dry-run first; the sources stay restorable)",
            details={"similarity": round(near.similarity, 6), "reason": judged.reason},
        )


def _current(attrs: Mapping[str, Any]) -> bool:
    """Served, and not superseded: what an agent would be handed."""
    return _served(attrs) and not attrs.get("superseded_by")


def _supersedes(snap: Snapshot, a: str, b: str) -> bool:
    graph = snap.graph
    return graph.has_edge(a, b, key=SUPERSEDES) or graph.has_edge(b, a, key=SUPERSEDES)


def _same_statement(
    a: Mapping[str, Any], b: Mapping[str, Any], near: NearPair, ctx: CheckContext
) -> Judgement:
    limits = ctx.rules.restatement
    if a.get("memory_type") == b.get("memory_type") == MemoryType.EVENT.value:
        apart = (a.get("occurred_at") or 0.0) - (b.get("occurred_at") or 0.0)
        return judge_events(near.content, near.other_content, apart, thresholds=limits)
    return judge(near.content, near.other_content, near.similarity, thresholds=limits)


def check_consolidation_provenance(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """A consolidated memory stands for at least two sources of its project, each
    superseded by it (and archived, unless restored) and by nothing else."""
    nodes = snap.graph.nodes
    sources: dict[str, list[str]] = defaultdict(list)
    consolidators: dict[str, list[str]] = defaultdict(list)
    for new, old in snap.edges_of_type(SUPERSEDES):
        if new != old and nodes[new].get("source") == CONSOLIDATED:
            sources[new].append(old)
            consolidators[old].append(new)
    fix = "restore the sources and forget the consolidated memory, then consolidate again"

    def problem(ids: Iterable[str], message: str, kind: str) -> Finding:
        return finding("CONSOLIDATION_PROVENANCE", ids, message, fix, details={"problem": kind})

    for node, attrs in nodes(data=True):
        if attrs.get("source") == CONSOLIDATED and len(sources[node]) < 2:
            count = len(sources[node])
            yield problem(
                [node, *sources[node]],
                f"consolidated memory {node} links to {count} source"
                f"{'' if count == 1 else 's'}: a consolidation stands for at least two",
                "too_few_sources",
            )
        reason = attrs.get("archive_reason") or ""
        if reason.startswith(CONSOLIDATED_INTO):
            named = reason[len(CONSOLIDATED_INTO) :]
            if named not in consolidators.get(node, []):
                yield problem(
                    [node, *([named] if named in nodes else [])],
                    f"memory {node} is archived as consolidated into {named}, which has "
                    "no SUPERSEDES edge to it: the consolidation does not account for it",
                    "unlinked_source",
                )
    for old, news in consolidators.items():
        if len(news) > 1:
            yield problem(
                [old, *news],
                f"memory {old} is a source of {len(news)} consolidated memories "
                f"({', '.join(sorted(news))}): its evidence is counted twice",
                "consolidated_twice",
            )
        elif nodes[old].get("superseded_by") != news[0] and _served(nodes[old]):
            yield problem(
                [old, news[0]],
                f"memory {old} is a source of consolidated memory {news[0]} but is served "
                "as current beside it",
                "source_served",
            )
    for rel in snap.foreign:
        if rel.type == SUPERSEDES and nodes[rel.from_id].get("source") == CONSOLIDATED:
            yield problem(
                [rel.from_id],
                f"consolidated memory {rel.from_id} links to {rel.to_id} of project "
                f"{rel.to_project or '(none)'}: a consolidation stays within one project",
                "cross_project_source",
            )


# -- invariants --------------------------------------------------------------


def _bad_unit(value: Any) -> bool:
    return (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or math.isnan(value)
        or not 0.0 <= value <= 1.0
    )


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


def check_invariants(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    tolerance = ctx.importance_tolerance
    for node, attrs in snap.graph.nodes(data=True):
        importance = attrs.get("importance")
        importance_ok = not _bad_unit(importance)
        if not importance_ok:
            yield finding(
                "IMPORTANCE_OUT_OF_RANGE",
                [node],
                f"memory {node} has importance {importance!r}, outside [0, 1]",
                "recompute its importance (graphmem evaluate --fix)",
                fixable=attrs.get("created_at") is not None,
                details={"importance": importance},
            )
        confidence = attrs.get("confidence")
        confidence_ok = not _bad_unit(confidence)
        if not confidence_ok:
            yield finding(
                "CONFIDENCE_OUT_OF_RANGE",
                [node],
                f"memory {node} has confidence {confidence!r}, outside [0, 1]",
                "set a confidence between 0 and 1 (the updateMemory mutation, or GraphMem.update)",
                details={"confidence": confidence},
            )
        if importance_ok and confidence_ok and attrs.get("created_at") is not None:
            yield from _stale_importance(node, attrs, ctx.scores, tolerance)
        yield from _lifecycle(node, attrs)


def _stale_importance(
    node: str, attrs: Mapping[str, Any], scores: Scores, tolerance: float
) -> Iterator[Finding]:
    rescored, written = scoring_window(attrs)
    lowest = scores.at(node, attrs, written)
    highest = lowest if written == rescored else scores.at(node, attrs, rescored)
    stored = attrs["importance"]
    if lowest - tolerance <= stored <= highest + tolerance:
        return
    expected = lowest if stored < lowest else highest
    yield finding(
        "IMPORTANCE_STALE",
        [node],
        f"memory {node} stores importance {stored:.4f}, but its fields give "
        f"{expected:.4f} when it was last written: a change was not rescored",
        "recompute its importance (graphmem evaluate --fix)",
        fixable=True,
        details={"stored": stored, "expected_low": lowest, "expected_high": highest},
    )


def _lifecycle(node: str, attrs: Mapping[str, Any]) -> Iterator[Finding]:
    tier = attrs.get("tier") or Tier.WORKING.value
    status = attrs.get("status") or Status.ACTIVE.value
    if attrs.get("pinned") and (tier != Tier.PROCEDURAL.value or status != Status.ACTIVE.value):
        yield finding(
            "PINNED_NOT_PROCEDURAL",
            [node],
            f"memory {node} is pinned but is {status} in tier {tier}: pinned rules belong "
            "in the procedural tier, active",
            "run promotion for its session (pinned items go to procedural), or unpin it",
            details={"tier": tier, "status": status},
        )
    archived = tier == Tier.ARCHIVED.value
    if archived and attrs.get("archived_at") is None:
        yield finding(
            "ARCHIVED_WITHOUT_TIMESTAMP",
            [node],
            f"memory {node} is archived but has no archived_at",
            "fill archived_at from its last write (graphmem evaluate --fix)",
            fixable=True,
        )
    problems = []
    if tier not in _TIERS:
        problems.append(f"unknown tier {tier!r}")
    if status not in _STATUSES:
        problems.append(f"unknown status {status!r}")
    if not archived and attrs.get("archived_at") is not None:
        problems.append(f"archived_at is set but the tier is {tier}")
    if not archived and attrs.get("archived_from") is not None:
        problems.append(f"archived_from is set but the tier is {tier}")
    if archived and attrs.get("archived_from") not in (None, *LIVE_TIERS):
        problems.append(f"archived_from is {attrs.get('archived_from')!r}, not a live tier")
    if not archived and attrs.get("merged_into") is not None:
        problems.append(f"merged into {attrs['merged_into']} but still in tier {tier}")
    if problems:
        yield finding(
            "LIFECYCLE_INVALID",
            [node],
            f"memory {node}: " + "; ".join(problems),
            "restore or archive it with graphmem's own operations, which set the lifecycle "
            "fields together",
            details={"problems": problems},
        )


def check_promotion_log(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    latest: dict[str, Any] = {}
    for event in snap.promotions:
        seen = latest.get(event.memory_id)
        if seen is None or (event.at, event.id) > (seen.at, seen.id):
            latest[event.memory_id] = event
    nodes = snap.graph.nodes
    for memory_id, event in latest.items():
        if memory_id not in nodes:
            continue  # forgotten memories keep their history
        attrs = nodes[memory_id]
        tier = attrs.get("tier") or Tier.WORKING.value
        if tier == event.to_tier or (
            tier == Tier.ARCHIVED.value and attrs.get("archived_from") == event.to_tier
        ):
            continue
        yield finding(
            "PROMOTION_LOG_MISMATCH",
            [memory_id],
            f"memory {memory_id} was last promoted to {event.to_tier} (event {event.id}) "
            f"but is in tier {tier}, and nothing logged explains the move",
            "check what moved it; restore or promote it so the log and the tier agree",
            details={"event_id": event.id, "to_tier": event.to_tier, "tier": tier},
        )


# -- references --------------------------------------------------------------


def check_references(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    graph = snap.graph
    for node, attrs in graph.nodes(data=True):
        for name in ("superseded_by", "merged_into"):
            target = attrs.get(name)
            if target is not None and target not in graph:
                yield finding(
                    "DANGLING_REFERENCE",
                    [node],
                    f"memory {node} has {name} = {target}, which is not a memory of "
                    f"project {snap.project_id}",
                    f"clear {name}, or point it at the memory that replaced {target}",
                    details={"field": name, "target": target},
                )
    for rel in snap.foreign:
        yield finding(
            "CROSS_PROJECT_RELATION",
            [rel.from_id, rel.to_id],
            f"memory {rel.from_id} {rel.type} {rel.to_id}, a memory of project "
            f"{rel.to_project or '(none)'}: nothing may cross a project boundary",
            "delete the relation; copy the memory into this project if it is needed here",
            details={"type": rel.type, "to_project": rel.to_project},
        )


def check_orphans(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    sessions = snap.sessions
    for node, attrs in snap.graph.nodes(data=True):
        if not _live(attrs):
            continue
        session = sessions.get(attrs.get("in_session") or "")
        if session is not None and session.in_project:
            continue
        where = (
            "is in no session"
            if session is None
            else f"is in session {session.id}, which is not linked to the project"
        )
        yield finding(
            "ORPHAN_MEMORY",
            [node],
            f"memory {node} {where}: no session-scoped read, promotion or rotation sees it",
            "archive it (graphmem evaluate --fix), or re-link its session",
            fixable=True,
            details={"session_id": attrs.get("session_id"), "tier": attrs.get("tier")},
        )


# -- scheduled work not done -------------------------------------------------


def check_overdue(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """Items a promotion or archival run would move, eligible for longer than a grace.

    Scores only decay between writes, so an item scoring at or above the
    promotion threshold now has scored so since its last write; an item that
    is stale and below the archival bar one grace period ago still is.
    """
    rules, scores, now = ctx.rules, ctx.scores, ctx.now
    archive_grace = max(ctx.overdue_after_seconds, 2 * rules.archive_interval_seconds)
    for node, attrs in snap.graph.nodes(data=True):
        tier = attrs.get("tier") or Tier.WORKING.value
        if tier not in LIVE_TIERS or attrs.get("created_at") is None:
            continue
        if _bad_unit(attrs.get("confidence")):
            continue
        if tier in _SHORT_TERM and attrs.get("memory_type") and attrs.get("superseded_by") is None:
            session = snap.sessions.get(attrs.get("in_session") or "")
            if session is not None and session.state == "active" and session.promotion_enabled:
                interval = session.promotion_interval_seconds or rules.promotion_interval_seconds
                grace = max(ctx.overdue_after_seconds, 2 * interval)
                score = scores.at(node, attrs, now)
                if score >= rules.promote_threshold and scoring_window(attrs)[1] <= now - grace:
                    yield finding(
                        "PROMOTION_OVERDUE",
                        [node],
                        f"memory {node} has scored {score:.3f} >= {rules.promote_threshold} "
                        f"in {tier} for over {grace / 3600:g} h without being promoted",
                        "check that the scheduler runs (graphmem serve) or run "
                        f"graphmem promote {session.id}",
                        details={"score": score, "session_id": session.id},
                    )
        stale = rules.stale_seconds(Tier(tier))
        if stale is None or attrs.get("pinned"):
            continue
        then = now - archive_grace
        last_used = attrs.get("last_accessed_at") or attrs.get("occurred_at") or attrs["created_at"]
        if last_used < then - stale:
            score = scores.at(node, attrs, then)
            if score < rules.archive_importance_below:
                yield finding(
                    "ARCHIVAL_OVERDUE",
                    [node],
                    f"memory {node} has been stale in {tier} and below importance "
                    f"{rules.archive_importance_below} for over {archive_grace / 3600:g} h "
                    "without being archived",
                    "check that the scheduler runs (graphmem serve) or run graphmem archive",
                    details={"score": score},
                )


CHECKS: tuple[Check, ...] = (
    check_supersession_cycles,
    check_inverted_supersession,
    check_forked_supersession,
    check_superseded_by,
    check_relation_conflicts,
    check_constrains_cycles,
    check_near_duplicates,
    check_consolidation_provenance,
    check_invariants,
    check_promotion_log,
    check_references,
    check_orphans,
    check_overdue,
)


def run_checks(snap: Snapshot, ctx: CheckContext) -> list[Finding]:
    """Every check's findings, most severe first, in a stable order."""
    findings = [f for check in CHECKS for f in check(snap, ctx)]
    findings.sort(key=Finding.sort_key)
    return findings
