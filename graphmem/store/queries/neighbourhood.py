"""What lies along a memory's relations as the graph stands now: its
neighbourhood, the relations between memories, the paths a hit's relations
reach, and the newest memory of a superseded one's chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.relations import Relation
from graphmem.domain.retrieval.explain import PathStep
from graphmem.store import Store


@dataclass(frozen=True, slots=True)
class Reached:
    """A memory, the memories within a depth of it (at most the limit asked), and
    how many it reaches in all: more than the limit says the view is cut."""

    center: Memory
    nodes: list[Memory]
    reachable: int


@dataclass(frozen=True, slots=True)
class Path:
    """A path from a seed along relations to a memory (``node_ids`` from the seed
    to it, ``steps`` the relations walked, as stored)."""

    seed_id: str
    memory: Memory
    node_ids: list[str]
    steps: list[PathStep]


@dataclass(frozen=True, slots=True)
class Successor:
    """The newest memory of a superseded memory's chain, with the chain's ids
    from that memory back to ``old_id``."""

    old_id: str
    chain: list[str]
    memory: Memory


def reached(
    store: Store,
    memory_id: str,
    project_id: str,
    *,
    depth: int,
    relation_types: Sequence[str],
    max_nodes: int,
) -> Reached | None:
    """The memory and what lies within ``depth`` relations of it (``neighborhood``);
    ``None`` when the viewer sees no such memory."""
    rows = store.read(
        "neighborhood",
        {
            "id": memory_id,
            "project_id": project_id,
            "depth": depth,
            "relation_types": list(relation_types),
            "max_nodes": max_nodes,
        },
    )
    if not rows:
        return None
    (row,) = rows
    return Reached(
        center=memory_from_fields(row["center"]),
        nodes=[memory_from_fields(fields) for fields in row["nodes"]],
        reachable=row["reachable"],
    )


def between(
    store: Store, ids: Sequence[str], project_id: str, relation_types: Sequence[str]
) -> list[Relation]:
    """The relations of ``relation_types`` between the memories ``ids``, oldest first."""
    rows = store.read(
        "edges_between",
        {"ids": list(ids), "project_id": project_id, "relation_types": list(relation_types)},
    )
    return [Relation(**row) for row in rows]


def paths(
    store: Store,
    seed_ids: Sequence[str],
    project_id: str,
    *,
    depth: int,
    relation_types: Sequence[str],
    max_paths: int,
) -> list[Path]:
    """Up to ``max_paths`` paths of ``relation_types`` from the seeds, ``depth``
    relations long at most (``expand_relations``)."""
    rows = store.read(
        "expand_relations",
        {
            "seed_ids": list(seed_ids),
            "project_id": project_id,
            "depth": depth,
            "relation_types": list(relation_types),
            "max_paths": max_paths,
        },
    )
    return [
        Path(
            seed_id=row["seed_id"],
            memory=memory_from_fields(row["memory"]),
            node_ids=row["node_ids"],
            steps=[PathStep(**step) for step in row["steps"]],
        )
        for row in rows
    ]


def successors(store: Store, ids: Sequence[str], project_id: str) -> list[Successor]:
    """For each superseded memory of ``ids``, the memories its chains of
    SUPERSEDES lead to that nothing supersedes (``supersede_heads``)."""
    rows = store.read("supersede_heads", {"ids": list(ids), "project_id": project_id})
    return [
        Successor(
            old_id=row["old_id"], chain=row["chain"], memory=memory_from_fields(row["memory"])
        )
        for row in rows
    ]
