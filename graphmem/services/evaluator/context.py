"""What every check shares: the context it compares the graph with, the way
it words a finding, and what it asks of the graph."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from graphmem.domain.consistency import CODES, Finding
from graphmem.domain.kinds import RelationType, Status, Tier
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.evaluator.scores import Scores
from graphmem.services.evaluator.snapshot import Snapshot

LIVE_TIERS = frozenset(t.value for t in Tier if t is not Tier.ARCHIVED)
SUPERSEDES = RelationType.SUPERSEDES.value


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


def relation_graph(snap: Snapshot, relation: str) -> nx.DiGraph:
    """The simple directed graph of one relation type."""
    typed: nx.DiGraph[str] = nx.DiGraph()
    typed.add_edges_from(snap.edges_of_type(relation))
    return typed


def is_live(attrs: Mapping[str, Any]) -> bool:
    return (attrs.get("tier") or Tier.WORKING.value) in LIVE_TIERS


def is_served(attrs: Mapping[str, Any]) -> bool:
    """Active in a live tier: what injection paths hand to an agent."""
    return is_live(attrs) and (attrs.get("status") or Status.ACTIVE.value) == Status.ACTIVE.value


def cycle_order(graph: nx.DiGraph, members: set[str]) -> list[str]:
    cycle = nx.find_cycle(graph.subgraph(members))
    return [u for u, _ in cycle]


def bad_unit(value: Any) -> bool:
    return (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or math.isnan(value)
        or not 0.0 <= value <= 1.0
    )
