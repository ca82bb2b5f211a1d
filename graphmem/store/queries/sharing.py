"""Sharing: who sees a memory, its copies in other projects, and the log of
both (each change is a ``:SharingEvent`` written by the statement that makes it)."""

from __future__ import annotations

from graphmem.domain.kinds import Visibility
from graphmem.domain.models import Memory, memory_from_fields
from graphmem.domain.projects import SharingEvent
from graphmem.store import Store


def set_visibility(
    store: Store,
    memory_id: str,
    to: Visibility,
    *,
    text_scope: str,
    by: str,
    event_id: str,
    project_id: str,
    now: float,
) -> Memory | None:
    """Make the memory seen as ``to``, with the full-text scope words of its new
    readers, logged as shared or unshared ``by`` whom; the memory after, or
    ``None`` when it was not the viewer's to change or is so already (a
    concurrent call got there first): then nothing is written."""
    rows = store.write(
        "set_visibility",
        {
            "id": memory_id,
            "project_id": project_id,
            "to": to.value,
            "text_scope": text_scope,
            "kind": "shared" if to is Visibility.SHARED else "unshared",
            "by": by,
            "event_id": event_id,
            "now": now,
        },
    )
    return memory_from_fields(rows[0]["memory"]) if rows else None


def copy(
    store: Store,
    memory_id: str,
    to_project_id: str,
    *,
    shared_scope: str,
    private_scope: str,
    copy_id: str,
    by: str,
    event_id: str,
    project_id: str,
    now: float,
) -> Memory | None:
    """A copy of the memory in ``to_project_id`` as ``copy_id``, naming its source
    and logged; its full-text scope is ``shared_scope`` or ``private_scope`` as
    the source is seen. ``None`` when the viewer sees no such memory."""
    rows = store.write(
        "copy_memory",
        {
            "id": memory_id,
            "project_id": project_id,
            "to_project_id": to_project_id,
            "shared_scope": shared_scope,
            "private_scope": private_scope,
            "copy_id": copy_id,
            "by": by,
            "event_id": event_id,
            "now": now,
        },
    )
    return memory_from_fields(rows[0]["memory"]) if rows else None


def events(
    store: Store, *, memory_id: str | None, limit: int, project_id: str
) -> list[SharingEvent]:
    """Shares, unshares and copies, newest first: of one memory, or the project's."""
    rows = store.read(
        "sharing_events", {"project_id": project_id, "memory_id": memory_id, "limit": limit}
    )
    return [
        SharingEvent.model_validate({k: v for k, v in row["event"].items() if v is not None})
        for row in rows
    ]
