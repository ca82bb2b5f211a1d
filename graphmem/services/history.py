"""Reads of the graph as it stood at a past time (``as_of``).

The store keeps each memory as it is now, and the logs of what changed it
(promotions, archivals and restores, activations, removed relations); these
reads take the memories and relations graphmem held at a time and replay the
logs over them with ``graphmem.domain.validity``. Current-time reads never come here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphmem.domain.kinds import RelationType
from graphmem.domain.models import Memory
from graphmem.domain.relations import Relation
from graphmem.domain.validity import Change, existed_at, memory_at
from graphmem.store import Store
from graphmem.store.queries import history, memories

HISTORY_BATCH = 500
"""Memories whose history one ``memory_history`` read covers."""


@dataclass(frozen=True)
class Walk:
    """A walk from a seed along relations that existed at the time."""

    seed_id: str
    node_ids: list[str]
    steps: list[Relation]


class History:
    """The store, read as it stood at a given time."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def at(self, memories: Sequence[Memory], at: float, *, project_id: str) -> list[Memory]:
        """Each memory as it stood at ``at`` (those written later are dropped)."""
        known = [m for m in memories if existed_at(m, at)]
        changes: dict[str, list[Change]] = {}
        for start in range(0, len(known), HISTORY_BATCH):
            ids = [m.id for m in known[start : start + HISTORY_BATCH]]
            changes.update(history.changes(self.store, ids, project_id))
        return [memory_at(m, changes.get(m.id, []), at) for m in known]

    def get_many(
        self, memory_ids: Sequence[str], at: float, *, project_id: str
    ) -> list[Memory | None]:
        """Memories in the order asked for, as they stood at ``at``; ``None``
        where an id is unknown or was not yet written."""
        stored = memories.get(self.store, memory_ids, project_id)
        found = {m.id: m for m in self.at(stored, at, project_id=project_id)}
        return [found.get(memory_id) for memory_id in memory_ids]

    def relations(
        self,
        memory_ids: Sequence[str],
        types: Sequence[RelationType],
        at: float,
        *,
        project_id: str,
    ) -> list[Relation]:
        """The relations of ``types`` touching the memories that existed at ``at``."""
        if not memory_ids or not types:
            return []
        seen: dict[tuple[str, str, str], Relation] = {}
        for relation in history.relations_at(self.store, memory_ids, types, at, project_id):
            seen.setdefault((relation.type.value, relation.from_id, relation.to_id), relation)
        return sorted(seen.values(), key=lambda r: (r.created_at, r.from_id, r.to_id))

    def walk(
        self,
        seed_ids: Sequence[str],
        depth: int,
        types: Sequence[RelationType],
        at: float,
        *,
        project_id: str,
        max_paths: int,
    ) -> tuple[list[Walk], dict[str, Memory]]:
        """Every simple path of up to ``depth`` relations from each seed, through
        memories and along relations that existed at ``at`` (at most
        ``max_paths``), and the memories they reach as they stood then."""
        seeds = list(dict.fromkeys(seed_ids))
        found = self.get_many(seeds, at, project_id=project_id)
        nodes: dict[str, Memory] = {m.id: m for m in found if m is not None}
        adjacency: dict[str, list[Relation]] = {}
        explored: set[str] = set()
        frontier = seeds
        for _ in range(depth):
            wanted = [i for i in frontier if i not in explored]
            if not wanted:
                break
            explored.update(wanted)
            relations = self._reach(wanted, nodes, types, at, project_id=project_id)
            frontier = _link(relations, nodes, explored, adjacency)
        return _paths(seeds, adjacency, depth, max_paths), nodes

    def _reach(
        self,
        wanted: Sequence[str],
        nodes: dict[str, Memory],
        types: Sequence[RelationType],
        at: float,
        *,
        project_id: str,
    ) -> list[Relation]:
        """One step out: the relations of ``wanted`` at ``at``; the memories at
        their far ends, as they stood then, are added to ``nodes``."""
        relations = self.relations(wanted, types, at, project_id=project_id)
        ends = {end for r in relations for end in (r.from_id, r.to_id)} - nodes.keys()
        reached = self.get_many(sorted(ends), at, project_id=project_id)
        nodes.update({m.id: m for m in reached if m is not None})
        return relations


def _link(
    relations: Sequence[Relation],
    nodes: Mapping[str, Memory],
    explored: set[str],
    adjacency: dict[str, list[Relation]],
) -> list[str]:
    """Adds each relation between known memories to the adjacency of its
    explored ends (once), and returns the ends it leads to: the next frontier."""
    frontier: list[str] = []
    for relation in relations:
        if relation.from_id not in nodes or relation.to_id not in nodes:
            continue  # an end written after ``at``, or forgotten since
        for here, there in ((relation.from_id, relation.to_id), (relation.to_id, relation.from_id)):
            if here in explored:
                links = adjacency.setdefault(here, [])
                if relation not in links:
                    links.append(relation)
                frontier.append(there)
    return frontier


def _paths(
    seeds: Sequence[str],
    adjacency: Mapping[str, list[Relation]],
    depth: int,
    max_paths: int,
) -> list[Walk]:
    """The simple paths of up to ``depth`` steps from each seed, depth first,
    until ``max_paths`` are found."""
    paths: list[Walk] = []
    for seed in seeds:
        stack: list[tuple[str, list[str], list[Relation]]] = [(seed, [seed], [])]
        while stack and len(paths) < max_paths:
            here, node_ids, steps = stack.pop()
            for relation in adjacency.get(here, []):
                there = relation.to_id if relation.from_id == here else relation.from_id
                if there in node_ids:
                    continue
                path = Walk(seed_id=seed, node_ids=[*node_ids, there], steps=[*steps, relation])
                paths.append(path)
                if len(path.steps) < depth:
                    stack.append((there, path.node_ids, path.steps))
    return paths[:max_paths]
