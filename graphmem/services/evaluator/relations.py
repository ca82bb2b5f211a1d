"""Checks of the relations between memories: none both constrains and
enables another, procedural rules can be applied in some order, and no
current memory rests only on memories that are no longer current."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import networkx as nx

from graphmem.domain.consistency import Finding
from graphmem.domain.dependencies import CARRIERS
from graphmem.domain.kinds import RelationType, Tier
from graphmem.domain.lifecycle import PROCEDURAL_TYPES
from graphmem.services.evaluator.context import (
    CheckContext,
    cycle_order,
    finding,
    is_live,
    relation_graph,
)
from graphmem.services.evaluator.snapshot import Snapshot

CONSTRAINS = RelationType.CONSTRAINS.value
ENABLES = RelationType.ENABLES.value
_PROCEDURAL_TYPES = frozenset(t.value for t in PROCEDURAL_TYPES)


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


def check_rests_on_nothing_current(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """A current memory all of whose ENABLES/CONSTRAINS sources stopped being
    current (``graphmem.domain.dependencies``): what it rested on is gone."""
    nodes = snap.graph.nodes
    sources: dict[str, set[str]] = {}
    for relation in CARRIERS:
        for u, v in snap.edges_of_type(relation.value):
            sources.setdefault(v, set()).add(u)
    for memory_id, rests_on in sorted(sources.items()):
        if not _current(nodes[memory_id]) or any(_current(nodes[s]) for s in rests_on):
            continue
        yield finding(
            "RESTS_ON_NOTHING_CURRENT",
            [memory_id, *rests_on],
            f"memory {memory_id} rests only on memories that are no longer current: "
            + ", ".join(sorted(rests_on)),
            "review it: confirm it still holds, supersede it, or archive it",
            details={"memory": memory_id, "rests_on": sorted(rests_on)},
        )


def _current(attrs: Mapping[str, Any]) -> bool:
    return is_live(attrs) and not attrs.get("superseded_by") and not attrs.get("merged_into")


def check_constrains_cycles(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    nodes = snap.graph.nodes
    procedural = {
        n
        for n, attrs in nodes(data=True)
        if is_live(attrs)
        and (
            attrs.get("tier") == Tier.PROCEDURAL.value
            or attrs.get("memory_type") in _PROCEDURAL_TYPES
        )
    }
    constrains = relation_graph(snap, CONSTRAINS).subgraph(procedural).copy()
    for members in nx.strongly_connected_components(constrains):
        if len(members) == 1:
            (only,) = members
            if not constrains.has_edge(only, only):
                continue
        order = cycle_order(constrains, members)
        chain = " -> ".join([*order, order[0]])
        yield finding(
            "CONSTRAINS_CYCLE",
            members,
            f"procedural rules constrain each other in a cycle ({chain}): "
            "no rule in it can be applied first",
            "remove the CONSTRAINS edge that does not hold, or merge the rules",
            details={"cycle": order},
        )
