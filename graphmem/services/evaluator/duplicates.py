"""Checks of memories that say the same thing: duplicates both served, and
consolidations (duplicates folded into one) whose sources do not add up."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterable, Iterator, Mapping
from typing import Any

from graphmem.domain.consistency import Finding
from graphmem.domain.consolidation import ARCHIVE_PREFIX as CONSOLIDATED_INTO
from graphmem.domain.kinds import MemoryType, Source
from graphmem.domain.restatement import judge, judge_events
from graphmem.domain.restatement.verdicts import Judgement, Verdict
from graphmem.services.evaluator.context import SUPERSEDES, CheckContext, finding, is_served
from graphmem.services.evaluator.snapshot import NearPair, Snapshot

CONSOLIDATED = Source.CONSOLIDATED.value
_PROVENANCE_FIX = "restore the sources and forget the consolidated memory, then consolidate again"


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
    return is_served(attrs) and not attrs.get("superseded_by")


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
    for node, attrs in nodes(data=True):
        yield from _memory_provenance(node, attrs, sources, consolidators, nodes)
    for old, news in consolidators.items():
        yield from _source_provenance(old, news, nodes)
    yield from _foreign_sources(snap)


def _problem(ids: Iterable[str], message: str, kind: str) -> Finding:
    return finding(
        "CONSOLIDATION_PROVENANCE", ids, message, _PROVENANCE_FIX, details={"problem": kind}
    )


def _memory_provenance(
    node: str,
    attrs: Mapping[str, Any],
    sources: dict[str, list[str]],
    consolidators: Mapping[str, list[str]],
    nodes: Container[str],
) -> Iterator[Finding]:
    """A consolidated memory with fewer than two sources; a memory archived as
    consolidated into one that does not supersede it."""
    if attrs.get("source") == CONSOLIDATED and len(sources[node]) < 2:
        count = len(sources[node])
        yield _problem(
            [node, *sources[node]],
            f"consolidated memory {node} links to {count} source"
            f"{'' if count == 1 else 's'}: a consolidation stands for at least two",
            "too_few_sources",
        )
    reason = attrs.get("archive_reason") or ""
    if not reason.startswith(CONSOLIDATED_INTO):
        return
    named = reason[len(CONSOLIDATED_INTO) :]
    if named not in consolidators.get(node, []):
        yield _problem(
            [node, *([named] if named in nodes else [])],
            f"memory {node} is archived as consolidated into {named}, which has "
            "no SUPERSEDES edge to it: the consolidation does not account for it",
            "unlinked_source",
        )


def _source_provenance(
    old: str, news: list[str], nodes: Mapping[str, Mapping[str, Any]]
) -> Iterator[Finding]:
    """A source of two consolidated memories, or one still served beside its
    consolidated memory."""
    if len(news) > 1:
        yield _problem(
            [old, *news],
            f"memory {old} is a source of {len(news)} consolidated memories "
            f"({', '.join(sorted(news))}): its evidence is counted twice",
            "consolidated_twice",
        )
    elif nodes[old].get("superseded_by") != news[0] and is_served(nodes[old]):
        yield _problem(
            [old, news[0]],
            f"memory {old} is a source of consolidated memory {news[0]} but is served "
            "as current beside it",
            "source_served",
        )


def _foreign_sources(snap: Snapshot) -> Iterator[Finding]:
    """A consolidated memory superseding a memory of another project."""
    nodes = snap.graph.nodes
    for rel in snap.foreign:
        if rel.type == SUPERSEDES and nodes[rel.from_id].get("source") == CONSOLIDATED:
            yield _problem(
                [rel.from_id],
                f"consolidated memory {rel.from_id} links to {rel.to_id} of project "
                f"{rel.to_project or '(none)'}: a consolidation stays within one project",
                "cross_project_source",
            )
