"""What lies along a memory's relations: its neighbourhood for graph views, the
memories a hit's relations reach (expansion), and the successor that stands in
for a superseded hit. Each as the graph stands now, or as it stood at a past
time (``as_of``, from graphmem.services.history).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphmem.domain.checks import check_between
from graphmem.domain.clock import Clock, stored_now
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.retrieval.explain import GraphPath, Neighborhood, PathStep
from graphmem.domain.retrieval.search import MAX_DEPTH, TRAVERSED, SearchFilters
from graphmem.domain.validity import check_as_of
from graphmem.services.history import History
from graphmem.services.memories import readable_references
from graphmem.services.retrieval.config import RetrievalConfig
from graphmem.store import Store
from graphmem.store.queries import memories as stored
from graphmem.store.queries import neighbourhood as graph


class Traversal:
    """Walks the relations of one store (and its history); ``config`` is read at each call."""

    def __init__(
        self,
        store: Store,
        history: History,
        clock: Clock,
        config: Callable[[], RetrievalConfig],
    ) -> None:
        self.store = store
        self.history = history
        self.clock = clock
        self._config = config

    def neighborhood(
        self,
        memory_id: str,
        *,
        project_id: str,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        as_of: Any = None,
    ) -> Neighborhood:
        """A memory and what lies within ``depth`` relations of it. With
        ``as_of``: the memories and relations that existed then, as they stood
        (a centre not yet written then has an empty neighbourhood)."""
        check_between("depth", depth, 1, MAX_DEPTH)
        try:
            types = [
                RelationType(t) for t in (relation_types or [*TRAVERSED, RelationType.SUPERSEDES])
            ]
        except ValueError:
            allowed = ", ".join(t.value for t in RelationType)
            raise InvalidInputError(
                f"relation_types: each must be one of {allowed}", field="relation_types"
            ) from None
        type_names = [t.value for t in dict.fromkeys(types)]
        if as_of is not None:
            at = check_as_of(as_of, stored_now(self.clock))
            return self._neighborhood_as_of(
                memory_id, depth, list(dict.fromkeys(types)), project_id, at
            )
        max_nodes = self._config().neighborhood_max_nodes
        found = graph.reached(
            self.store,
            memory_id,
            project_id,
            depth=depth,
            relation_types=type_names,
            max_nodes=max_nodes,
        )
        if found is None:
            raise NotFoundError(
                f"id: no memory {memory_id!r} in project {project_id!r}", field="id"
            )
        nodes = readable_references(self.store, [found.center, *found.nodes])
        return Neighborhood(
            center_id=memory_id,
            depth=depth,
            nodes=nodes,
            edges=graph.between(self.store, [node.id for node in nodes], project_id, type_names),
            truncated=found.reachable > max_nodes,
        )

    def _neighborhood_as_of(
        self,
        memory_id: str,
        depth: int,
        types: list[RelationType],
        project_id: str,
        at: float,
    ) -> Neighborhood:
        """``neighborhood`` as the graph stood at ``at``, walked breadth first."""
        (center,) = self.history.get_many([memory_id], at, project_id=project_id)
        if center is None:
            if stored.get_one(self.store, memory_id, project_id) is None:
                raise NotFoundError(
                    f"id: no memory {memory_id!r} in project {project_id!r}", field="id"
                )
            return Neighborhood(center_id=memory_id, depth=depth, nodes=[], edges=[])
        nodes = {center.id: center}
        frontier = [center.id]
        for _ in range(depth):
            relations = self.history.relations(frontier, types, at, project_id=project_id)
            ends = sorted({e for r in relations for e in (r.from_id, r.to_id)} - nodes.keys())
            reached = self.history.get_many(ends, at, project_id=project_id)
            frontier = [m.id for m in reached if m is not None]
            nodes.update({m.id: m for m in reached if m is not None})
            if not frontier:
                break
        limit = self._config().neighborhood_max_nodes
        kept = list(nodes.values())[: limit + 1]
        ids = {m.id for m in kept}
        edges = [
            r
            for r in self.history.relations(sorted(ids), types, at, project_id=project_id)
            if r.from_id in ids and r.to_id in ids
        ]
        return Neighborhood(
            center_id=memory_id,
            depth=depth,
            nodes=readable_references(self.store, kept),
            edges=edges,
            truncated=len(nodes) - 1 > limit,
        )

    def replace_superseded(
        self,
        relevance: dict[str, float],
        memories: dict[str, Memory],
        replaces: dict[str, list[str]],
        filters: SearchFilters,
        notes: list[str],
        project_id: str,
        *,
        keep: set[str],
    ) -> None:
        """Swap each superseded hit but those to ``keep`` for the newest memory
        of its chain that the filters allow; the successor keeps the better of
        the two relevances."""
        superseded = [
            i for i in relevance if memories[i].superseded_by is not None and i not in keep
        ]
        if not superseded:
            return
        options: dict[str, list[tuple[list[str], Memory]]] = {}
        for head in graph.successors(self.store, superseded, project_id):
            if filters.allows(head.memory):
                chain = list(reversed(head.chain))  # old ... successor
                options.setdefault(head.old_id, []).append((chain, head.memory))
        for old_id in superseded:
            rel = relevance.pop(old_id)
            if old_id not in options:
                notes.append(
                    f"{old_id} was found but is superseded and no successor passes the filters"
                )
                continue
            chain, successor = max(options[old_id], key=lambda o: (len(o[0]), o[1].created_at))
            memories.setdefault(successor.id, successor)
            relevance[successor.id] = max(relevance.get(successor.id, 0.0), rel)
            stands_for = replaces.setdefault(successor.id, [])
            stands_for.extend(i for i in chain[:-1] if i not in stands_for)

    def expand(
        self,
        seeds: list[str],
        depth: int,
        relation_types: Sequence[RelationType],
        relevance: dict[str, float],
        memories: dict[str, Memory],
        paths: dict[str, GraphPath],
        filters: SearchFilters,
        project_id: str,
        at: float | None,
    ) -> None:
        """Pull in what the seeds relate to, each at its best inherited relevance;
        for an ``as_of`` read, along the relations and memories of then."""
        if not seeds or not relation_types:
            return
        config = self._config()
        if at is not None:
            walked = self._expansion_as_of(seeds, depth, relation_types, filters, project_id, at)
        else:
            walked = graph.paths(
                self.store,
                seeds,
                project_id,
                depth=min(depth, MAX_DEPTH),
                relation_types=[t.value for t in relation_types],
                max_paths=config.max_paths,
            )
        base = {seed: relevance[seed] for seed in seeds}
        for path in walked:
            memory = path.memory
            if not filters.allows(memory):
                continue
            factor = config.factors.along(path.steps, path.node_ids)
            inherited = base[path.seed_id] * factor
            if inherited <= relevance.get(memory.id, 0.0):
                continue  # found directly, or by a better path, already
            memories.setdefault(memory.id, memory)
            relevance[memory.id] = inherited
            paths[memory.id] = GraphPath(seed_id=path.seed_id, steps=path.steps, factor=factor)

    def _expansion_as_of(
        self,
        seeds: list[str],
        depth: int,
        relation_types: Sequence[RelationType],
        filters: SearchFilters,
        project_id: str,
        at: float,
    ) -> list[graph.Path]:
        """``expand_relations``' paths as the graph stood at ``at``: along the
        relations of then, to memories that held then."""
        walked, nodes = self.history.walk(
            seeds,
            min(depth, MAX_DEPTH),
            relation_types,
            at,
            project_id=project_id,
            max_paths=self._config().max_paths,
        )
        return [
            graph.Path(
                seed_id=path.seed_id,
                memory=memory_from_fields(nodes[path.node_ids[-1]].model_dump()),
                node_ids=path.node_ids,
                steps=[PathStep(type=s.type, from_id=s.from_id, to_id=s.to_id) for s in path.steps],
            )
            for path in walked
            if filters.include_superseded or nodes[path.node_ids[-1]].held_at(at)
        ]
