"""Checks of the SUPERSEDES edges and ``superseded_by``: exactly one version
of a memory is current, and reads can tell which."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import networkx as nx

from graphmem.domain.consistency import Finding
from graphmem.services.evaluator.context import (
    SUPERSEDES,
    CheckContext,
    cycle_order,
    finding,
    is_live,
    is_served,
    relation_graph,
)
from graphmem.services.evaluator.snapshot import Snapshot


def check_supersession_cycles(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    supersedes = relation_graph(snap, SUPERSEDES)
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
        order = cycle_order(supersedes, members)
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
        if not is_served(nodes[old]) or any(is_served(nodes[new]) for new in news):
            continue
        states = ", ".join(
            f"{new} is {'archived' if not is_live(nodes[new]) else 'a candidate'}"
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
    supersedes = relation_graph(snap, SUPERSEDES)
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
