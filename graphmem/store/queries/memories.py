"""Memories: reading them by id, and the statements that change one memory."""

from __future__ import annotations

from collections.abc import Iterable

from graphmem.domain.models import Memory, memory_from_fields
from graphmem.store import Store


def get(store: Store, ids: Iterable[str], project_id: str) -> list[Memory]:
    """The memories of ``ids`` the viewer may see, in no particular order (key
    them by id); an id of no such memory is left out."""
    rows = store.read("get_memories", {"ids": list(ids), "project_id": project_id})
    return [memory_from_fields(row["memory"]) for row in rows]


def get_one(store: Store, memory_id: str, project_id: str) -> Memory | None:
    """The memory ``memory_id``, or ``None`` when the viewer sees no such memory."""
    found = get(store, [memory_id], project_id)
    return found[0] if found else None
