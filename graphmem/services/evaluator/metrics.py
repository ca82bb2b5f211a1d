"""Per-project metrics, and the per-memory relevance evidence the evaluator reports.

Metrics describe the graph as a whole (what is in it, how fast it moves
through the lifecycle, how it hangs together); they are plain JSON values so
that reports stored in the graph can be compared over time.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from graphmem.domain.kinds import RelationType, Status, Tier
from graphmem.services.evaluator.context import LIVE_TIERS, SUPERSEDES
from graphmem.services.evaluator.snapshot import Snapshot

DAY = 86_400.0
WINDOWS = {"1d": DAY, "7d": 7 * DAY, "30d": 30 * DAY}
TIMELINE_DAYS = 30
DEGREE_BUCKETS = ((0, 0), (1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, None))
SUPPORT_FULL = 3
"""Served neighbours at which the support part of relevance is full."""


@dataclass(frozen=True)
class Structure:
    """The relation graph as a sparse matrix: one index per memory, all relation types.

    PageRank and components over 100,000 memories are a few sparse
    matrix products; walking networkx's multigraph views for them costs
    several times more than the whole set of checks.
    """

    nodes: list[str]
    sources: np.ndarray
    targets: np.ndarray

    @classmethod
    def of(cls, snap: Snapshot) -> Structure:
        nodes = list(snap.graph.nodes)
        index = {node: i for i, node in enumerate(nodes)}
        pairs = [pair for kind in snap.relation_types() for pair in snap.edges_of_type(kind)]
        sources = np.fromiter((index[u] for u, _ in pairs), dtype=np.int64, count=len(pairs))
        targets = np.fromiter((index[v] for _, v in pairs), dtype=np.int64, count=len(pairs))
        return cls(nodes, sources, targets)

    def matrix(self, *, reverse: bool = False) -> sparse.csr_array:
        """Adjacency with parallel edges summed, like networkx's conversion."""
        n = len(self.nodes)
        rows, cols = (self.targets, self.sources) if reverse else (self.sources, self.targets)
        data = np.ones(len(rows), dtype=float)
        return sparse.csr_array((data, (rows, cols)), shape=(n, n))


def pagerank(
    structure: Structure, *, alpha: float = 0.85, tol: float = 1.0e-6, max_iter: int = 100
) -> dict[str, float]:
    """PageRank over the reversed relation graph, as ``networkx.pagerank`` computes it.

    Relations point from the memory that acts (constrains, enables,
    supersedes, relates) to the one acted on; reversed, rank flows to the
    memories others depend on, so the top of the ranking is what the rest
    of the graph is built on. Same power iteration, uniform teleport and
    dangling handling as networkx (a test keeps them equal).
    """
    n = len(structure.nodes)
    if n == 0:
        return {}
    adjacency = structure.matrix(reverse=True)
    out = np.asarray(adjacency.sum(axis=1)).ravel()
    scale = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    adjacency = sparse.diags_array(scale) @ adjacency
    x = np.full(n, 1.0 / n)
    teleport = np.full(n, 1.0 / n)
    dangling = out == 0
    for _ in range(max_iter):
        last = x
        x = alpha * (x @ adjacency + x[dangling].sum() * teleport) + (1 - alpha) * teleport
        if np.abs(x - last).sum() < n * tol:
            break
    return dict(zip(structure.nodes, x.tolist(), strict=True))


def compute_metrics(
    snap: Snapshot,
    now: float,
    structure: Structure,
    ranks: Mapping[str, float],
    *,
    top: int = 10,
) -> dict[str, Any]:
    """The project's metrics as plain JSON: one pass over the memories counts
    what each holds (``_Census``); the rates, timelines and graph figures are
    computed from those counts and the relation structure."""
    graph = snap.graph
    census = _Census()
    for _, attrs in graph.nodes(data=True):
        census.add(attrs, now)
    promoted_at = [event.at for event in snap.promotions]
    relations: Counter[str] = Counter({t.value: 0 for t in RelationType})
    relations.update({kind: len(snap.edges_of_type(kind)) for kind in snap.relation_types()})
    return {
        "memories": graph.number_of_nodes(),
        "relations": graph.number_of_edges(),
        "by_tier": dict(census.tiers),
        "by_status": dict(census.statuses),
        "by_type": dict(sorted(census.types.items())),
        "relations_by_type": dict(relations),
        "pinned": census.pinned,
        "superseded": census.superseded,
        "merged": census.merged,
        "with_embedding": census.embedded,
        "importance": {
            "histogram": census.importance_bins,
            "mean": census.importance_mean(),
        },
        "promotion": _rates(promoted_at, now),
        "archival": _rates(census.archived_at, now),
        "daily": _daily(promoted_at, census.archived_at, now),
        "candidates": _candidates(census.candidate_ages),
        "graph": _structure(structure),
        "pagerank_top": _top(snap, structure, ranks, top),
        "supersede_chains": supersede_chains(snap),
    }


@dataclass
class _Census:
    """What one pass over the memories counts, each memory added once: every
    tier and status appears (at zero when none holds it), and the values a
    memory lacks count as the defaults graphmem reads them as."""

    tiers: Counter[str] = field(default_factory=lambda: Counter({t.value: 0 for t in Tier}))
    statuses: Counter[str] = field(default_factory=lambda: Counter({s.value: 0 for s in Status}))
    types: Counter[str] = field(default_factory=Counter)
    importance_bins: list[int] = field(default_factory=lambda: [0] * 10)
    importance_sum: float = 0.0
    importance_n: int = 0
    candidate_ages: list[float] = field(default_factory=list)
    archived_at: list[float] = field(default_factory=list)
    pinned: int = 0
    superseded: int = 0
    merged: int = 0
    embedded: int = 0

    def add(self, attrs: Mapping[str, Any], now: float) -> None:
        """Count one memory, read as its lifecycle reads it (no tier is working)."""
        tier = attrs.get("tier") or Tier.WORKING.value
        status = attrs.get("status") or Status.ACTIVE.value
        self.tiers[tier] += 1
        self.statuses[status] += 1
        self.types[attrs.get("memory_type") or "untyped"] += 1
        self.pinned += bool(attrs.get("pinned"))
        self.superseded += attrs.get("superseded_by") is not None
        self.merged += attrs.get("merged_into") is not None
        self.embedded += bool(attrs.get("has_embedding"))
        self._add_importance(attrs.get("importance"))
        if status == Status.CANDIDATE.value and tier in LIVE_TIERS:
            self.candidate_ages.append(max(0.0, now - (attrs.get("created_at") or now)))
        if attrs.get("archived_at") is not None:
            self.archived_at.append(attrs["archived_at"])

    def _add_importance(self, value: Any) -> None:
        """Only an importance in [0, 1] counts: one out of range is a finding of
        its own, and would skew the histogram and the mean."""
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            self.importance_bins[min(int(value * 10), 9)] += 1
            self.importance_sum += value
            self.importance_n += 1

    def importance_mean(self) -> float | None:
        return self.importance_sum / self.importance_n if self.importance_n else None


def _rates(times: Iterable[float], now: float) -> dict[str, dict[str, float]]:
    ordered = sorted(times)
    rates = {}
    for name, seconds in WINDOWS.items():
        count = len(ordered) - bisect.bisect_left(ordered, now - seconds)
        count -= len(ordered) - bisect.bisect_right(ordered, now)  # ignore the future
        rates[name] = {"count": count, "per_day": count / (seconds / DAY)}
    return rates


def _daily(promoted: list[float], archived: list[float], now: float) -> list[dict[str, Any]]:
    """Promotions and archivals per UTC day, the last ``TIMELINE_DAYS`` days, oldest first."""
    today = math.floor(now / DAY)
    first = today - TIMELINE_DAYS + 1
    counts = {day: [0, 0] for day in range(first, today + 1)}
    for column, times in enumerate((promoted, archived)):
        for at in times:
            day = math.floor(at / DAY)
            if day in counts:
                counts[day][column] += 1
    return [
        {
            "day": datetime.fromtimestamp(day * DAY, tz=UTC).date().isoformat(),
            "promotions": p,
            "archivals": a,
        }
        for day, (p, a) in counts.items()
    ]


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": ordered[-1]}


def _candidates(ages: list[float]) -> dict[str, Any]:
    return {
        "backlog": len(ages),
        "older_than_7d": sum(age > 7 * DAY for age in ages),
        "age_seconds": _percentiles(ages),
    }


def _degrees(structure: Structure) -> tuple[np.ndarray, np.ndarray]:
    n = len(structure.nodes)
    return (
        np.bincount(structure.targets, minlength=n),
        np.bincount(structure.sources, minlength=n),
    )


def _structure(structure: Structure) -> dict[str, Any]:
    n = len(structure.nodes)
    m = len(structure.sources)
    incoming, outgoing = _degrees(structure)
    degrees = incoming + outgoing
    if n:
        _, labels = csgraph.connected_components(
            structure.matrix(), directed=True, connection="weak"
        )
        components = np.bincount(labels)
    else:
        components = np.zeros(0, dtype=np.int64)
    histogram = {}
    for low, high in DEGREE_BUCKETS:
        label = str(low) if low == high else f"{low}+" if high is None else f"{low}-{high}"
        upper = degrees.max(initial=0) if high is None else high
        histogram[label] = int(((degrees >= low) & (degrees <= upper)).sum())
    return {
        "density": m / (n * (n - 1)) if n > 1 else 0.0,
        "weak_components": len(components),
        "largest_component": int(components.max()) if len(components) else 0,
        "isolated": histogram["0"],
        "degree": {
            "mean": float(degrees.mean()) if n else 0.0,
            **_percentiles(degrees.tolist()),
            "histogram": histogram,
        },
    }


def _top(
    snap: Snapshot, structure: Structure, ranks: Mapping[str, float], top: int
) -> list[dict[str, Any]]:
    incoming, outgoing = _degrees(structure)
    position = {node: i for i, node in enumerate(structure.nodes)}
    best = sorted(ranks.items(), key=lambda item: (-item[1], item[0]))[:top]
    nodes = snap.graph.nodes
    return [
        {
            "id": node,
            "score": score,
            "tier": nodes[node].get("tier"),
            "memory_type": nodes[node].get("memory_type"),
            "in_degree": int(incoming[position[node]]),
            "out_degree": int(outgoing[position[node]]),
        }
        for node, score in best
    ]


def supersede_chains(snap: Snapshot) -> dict[str, Any]:
    """Lengths (in memories) of the longest version chain from each current head.

    A head supersedes something and is superseded by nothing. Cycles are
    left out (a check reports them); a chain forking below a head counts
    its longest branch.
    """
    chains: nx.DiGraph[str] = nx.DiGraph()
    chains.add_edges_from((u, v) for u, v in snap.edges_of_type(SUPERSEDES) if u != v)
    cyclic = {n for c in nx.strongly_connected_components(chains) if len(c) > 1 for n in c}
    chains.remove_nodes_from(cyclic)
    longest: dict[str, int] = {}
    for node in reversed(list(nx.topological_sort(chains))):
        longest[node] = 1 + max((longest[old] for old in chains.successors(node)), default=0)
    lengths = [
        longest[node]
        for node in chains.nodes
        if chains.in_degree(node) == 0 and chains.out_degree(node) > 0
    ]
    return {
        "chains": len(lengths),
        "max_length": max(lengths, default=0),
        "mean_length": sum(lengths) / len(lengths) if lengths else 0.0,
        "histogram": {str(k): v for k, v in sorted(Counter(lengths).items())},
    }


def relevance(snap: Snapshot, ranks: Mapping[str, float]) -> dict[str, float]:
    """Each live, current memory's relevance evidence in [0, 1].

    ``0.5 * rank percentile + 0.5 * support``, where the rank percentile is
    the memory's PageRank position among the project's live memories (0 the
    lowest, 1 the highest) and support is the number of distinct served
    memories it is related to by CONSTRAINS, ENABLES or RELATED_TO (either
    direction), divided by three and capped at 1. A memory nothing served
    relates to has no evidence (0), whatever its rank: PageRank alone gives
    every isolated memory the same middling share.
    """
    graph = snap.graph
    nodes = graph.nodes
    live = [
        n
        for n, attrs in nodes(data=True)
        if (attrs.get("tier") or Tier.WORKING.value) in LIVE_TIERS
        and attrs.get("superseded_by") is None
    ]
    percentile = _percentile_ranks({n: ranks.get(n, 0.0) for n in live})
    served = {n for n in live if (nodes[n].get("status") or "active") == Status.ACTIVE.value}
    scores = {}
    neighbours: dict[str, set[str]] = defaultdict(set)
    for kind in snap.relation_types():
        if kind == SUPERSEDES:
            continue
        for u, v in snap.edges_of_type(kind):
            if u != v:
                neighbours[u].add(v)
                neighbours[v].add(u)
    for node in live:
        support = len(neighbours.get(node, set()) & served)
        if support == 0:
            scores[node] = 0.0
            continue
        value = 0.5 * percentile[node] + 0.5 * min(support / SUPPORT_FULL, 1.0)
        scores[node] = round(min(max(value, 0.0), 1.0), 6)
    return scores


def _percentile_ranks(values: Mapping[str, float]) -> dict[str, float]:
    """Position of each value among all, in [0, 1]; ties share their mean position."""
    if len(values) < 2:
        return dict.fromkeys(values, 1.0)
    ordered = sorted(values.values())
    last = len(ordered) - 1
    result = {}
    for key, value in values.items():
        low = bisect.bisect_left(ordered, value)
        high = bisect.bisect_right(ordered, value) - 1
        result[key] = (low + high) / 2 / last
    return result
