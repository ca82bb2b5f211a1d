"""Reading a project out for export: its node, its records a page at a time, and
the relations between its memories.

An export carries every property as the store holds it, so a record's
``props`` is an open map; what it hangs off (a memory's session, an event's
memory) is a named field beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from graphmem.store import Store
from graphmem.store.queries import records


@dataclass(frozen=True, slots=True)
class Exported:
    """One exported node: its properties, and (in the kinds below) the ids of
    what it is linked to, read from the graph."""

    props: Mapping[str, Any]

    def links(self) -> dict[str, Any]:
        """The link columns by name, as an export line carries them."""
        return {f.name: getattr(self, f.name) for f in fields(self)[1:]}


@dataclass(frozen=True, slots=True)
class ExportedSession(Exported):
    in_project: str | None


@dataclass(frozen=True, slots=True)
class ExportedMemory(Exported):
    in_session: str | None


@dataclass(frozen=True, slots=True)
class ExportedRun(Exported):
    for_session: str | None


@dataclass(frozen=True, slots=True)
class ExportedPromotion(Exported):
    promoted: str | None


@dataclass(frozen=True, slots=True)
class ExportedStaging(Exported):
    changed: str | None


@dataclass(frozen=True, slots=True)
class ExportedArchival(Exported):
    moved: str | None


@dataclass(frozen=True, slots=True)
class ExportedCapsule(Exported):
    for_sessions: list[str]
    in_context: list[str]
    taught: str | None

    def links(self) -> dict[str, Any]:
        """Its sessions and memories in id order: the graph keeps no order."""
        return {
            "for_sessions": sorted(self.for_sessions),
            "in_context": sorted(self.in_context),
            "taught": self.taught,
        }


EXPORTS: dict[str, tuple[str, type[Exported]]] = {
    "session": ("export_sessions", ExportedSession),
    "memory": ("export_memories", ExportedMemory),
    "memory_fields": ("export_memory_fields", Exported),
    "promotion_run": ("export_promotion_runs", ExportedRun),
    "promotion_event": ("export_promotion_events", ExportedPromotion),
    "staging_event": ("export_staging_events", ExportedStaging),
    "archival_event": ("export_archival_events", ExportedArchival),
    "failure_capsule": ("export_failure_capsules", ExportedCapsule),
    "delivery": ("export_deliveries", Exported),
}
"""Each exported kind's statement and record. ``memory_fields`` is a memory's
properties without its embedding or session, for formats that carry neither."""


def page(store: Store, kind: str, project_id: str, after: str, limit: int) -> list[Exported]:
    """Up to ``limit`` records of ``kind`` whose id sorts after ``after``, in id
    order (keyset paging: the next page starts past the last id)."""
    statement, record = EXPORTS[kind]
    params = {"project_id": project_id, "after": after, "limit": limit}
    return records(record, store.read(statement, params))


@dataclass(frozen=True, slots=True)
class ExportedProject:
    props: Mapping[str, Any] | None
    """The project node's properties; ``None`` when the project has no node."""
    sessions: int
    memories: int


def project(store: Store, project_id: str) -> ExportedProject:
    """The project node and how many sessions and memories the project holds."""
    (found,) = records(ExportedProject, store.read("export_project", {"project_id": project_id}))
    return found


@dataclass(frozen=True, slots=True)
class ExportedRelation:
    type: str
    from_id: str
    to_id: str
    props: Mapping[str, Any]


def relations(store: Store, ids: Sequence[str], project_id: str) -> list[ExportedRelation]:
    """The relations leaving memories ``ids`` for memories of the same project,
    ordered by source, type and target."""
    rows = store.read("export_relations", {"ids": list(ids), "project_id": project_id})
    return records(ExportedRelation, rows)
