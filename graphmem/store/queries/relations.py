"""Relations: typed edges between memories of one project, the log of removed
ones, and the reads that plan the links graphmem writes itself at ingest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.domain.kinds import RelationType
from graphmem.domain.relations import Relation, RelationEvent
from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Pair:
    """What relating two memories checks first: whether each end is a memory the
    viewer sees, and whether ``to`` already supersedes ``from`` (a SUPERSEDES
    edge from ``from`` would close a cycle)."""

    from_exists: bool
    to_exists: bool
    to_supersedes_from: bool


def pair(store: Store, from_id: str, to_id: str, project_id: str) -> Pair:
    """The ends of a relation about to be written, as ``Pair`` says."""
    rows = store.read("memory_pair", {"from_id": from_id, "to_id": to_id, "project_id": project_id})
    return records(Pair, rows)[0]


def relate(
    store: Store,
    relation_type: RelationType,
    from_id: str,
    to_id: str,
    *,
    rationale: str | None,
    weight: float,
    project_id: str,
    now: float,
) -> Relation | None:
    """Add (or update) the edge; ``None`` when an end was deleted since it was checked."""
    rows = store.write(
        relation_type.statement,
        {
            "from_id": from_id,
            "to_id": to_id,
            "project_id": project_id,
            "rationale": rationale,
            "weight": weight,
            "now": now,
        },
    )
    return Relation(type=relation_type, **rows[0]) if rows else None


def unrelate(
    store: Store,
    relation_type: RelationType,
    from_id: str,
    to_id: str,
    *,
    event_id: str,
    removed_by: str,
    reason: str,
    project_id: str,
    now: float,
) -> Relation | None:
    """Remove the edge, logged as event ``event_id`` with who removed it and why;
    the edge as it was, or ``None`` when there is no such edge (nothing is written)."""
    rows = store.write(
        "unrelate",
        {
            "from_id": from_id,
            "to_id": to_id,
            "type": relation_type.value,
            "project_id": project_id,
            "event_id": event_id,
            "removed_by": removed_by,
            "reason": reason,
            "now": now,
        },
    )
    return Relation(type=relation_type, **rows[0]) if rows else None


def events(store: Store, memory_id: str, project_id: str, limit: int) -> list[RelationEvent]:
    """Relations removed from or to a memory, newest first."""
    rows = store.read(
        "relation_events", {"memory_id": memory_id, "project_id": project_id, "limit": limit}
    )
    return [
        RelationEvent.model_validate({k: v for k, v in row["event"].items() if v is not None})
        for row in rows
    ]


def of(store: Store, memory_ids: Sequence[str], project_id: str) -> list[list[Relation]]:
    """The edges touching each memory, one list per id in the order asked for,
    oldest edge first (an edge between two of them is in both lists)."""
    rows = store.read("relations_of", {"ids": list(memory_ids), "project_id": project_id})
    grouped: dict[str, list[Relation]] = {memory_id: [] for memory_id in memory_ids}
    for row in rows:
        memory_id = row.pop("memory_id")
        grouped[memory_id].append(Relation(**row))
    return [grouped[memory_id] for memory_id in memory_ids]


# -- what auto-linking reads before a batch is written ------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """The latest stored memory of an item's session at or before the item."""

    index: int
    """The item's place in the batch asked about."""
    id: str
    occurred_at: float
    """When it happened (its creation, when it says nothing else)."""


def previous_turns(store: Store, items: Sequence[tuple[str, float]], project_id: str) -> list[Turn]:
    """For each item (its session, when it happened) that has one, its previous
    turn among the stored memories."""
    return records(
        Turn,
        store.read(
            "previous_turns",
            {
                "items": [
                    {"index": i, "session_id": session_id, "occurred_at": occurred_at}
                    for i, (session_id, occurred_at) in enumerate(items)
                ],
                "project_id": project_id,
            },
        ),
    )


@dataclass(frozen=True, slots=True)
class Hit:
    """A stored memory whose text holds an entity's word."""

    id: str
    content: str | None
    occurred_at: float


@dataclass(frozen=True, slots=True)
class Mentions:
    """The most recent memories whose text holds one entity's word."""

    entity: str
    hits: list[Hit]


def entity_mentions(
    store: Store, queries: Sequence[tuple[str, str]], project_id: str, k: int
) -> list[Mentions]:
    """For each (entity, its full-text query), the ``k`` most recent memories the
    index matches, newest first."""
    rows = store.read(
        "entity_mentions",
        {
            "items": [{"entity": entity, "query": query} for entity, query in queries],
            "project_id": project_id,
            "k": k,
        },
    )
    return [Mentions(entity=row["entity"], hits=records(Hit, row["hits"])) for row in rows]
