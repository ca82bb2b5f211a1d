"""Memories: reading them by id, listing them, and the statements that change one memory."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.ids import new_id
from graphmem.domain.models import Memory, MemoryFilter, memory_from_fields
from graphmem.domain.restatement import readable
from graphmem.store import Store
from graphmem.store.queries import first, records


@dataclass(frozen=True, slots=True)
class SameText:
    """A live memory whose normalised text is ``key`` (``find_by_content_key``)."""

    key: str
    id: str
    created_at: float
    memory_type: str | None
    occurred_at: float | None


def memories_of(rows: Iterable[Mapping[str, Any]]) -> list[Memory]:
    """The memories of rows whose ``memory`` column is a memory's projection."""
    return [memory_from_fields(row["memory"]) for row in rows]


def _one(rows: Sequence[Mapping[str, Any]]) -> Memory | None:
    """The memory a one-memory statement returned; ``None`` when it matched none."""
    return memory_from_fields(rows[0]["memory"]) if rows else None


def get(store: Store, ids: Iterable[str], project_id: str) -> list[Memory]:
    """The memories of ``ids`` the viewer may see, in no particular order (key
    them by id); an id of no such memory is left out."""
    return memories_of(store.read("get_memories", {"ids": list(ids), "project_id": project_id}))


def get_one(store: Store, memory_id: str, project_id: str) -> Memory | None:
    """The memory ``memory_id``, or ``None`` when the viewer sees no such memory."""
    found = get(store, [memory_id], project_id)
    return found[0] if found else None


def readable_ids(store: Store, ids: Collection[str]) -> set[str]:
    """Of ``ids``, those of memories the viewer may read."""
    rows = store.read("readable_memories", {"ids": sorted(ids)})
    return {row["id"] for row in rows}


def listed(
    store: Store,
    flt: MemoryFilter,
    *,
    after: tuple[float | None, str | None],
    limit: int,
    project_id: str,
) -> list[Memory]:
    """Up to ``limit`` memories passing ``flt``, newest first, after the cursor
    ``after`` (its ``created_at`` and id)."""
    after_created_at, after_id = after
    rows = store.read(
        "list_memories",
        {
            "project_id": project_id,
            "tier": flt.tier.value if flt.tier else None,
            "status": flt.status.value if flt.status else None,
            "memory_type": flt.memory_type.value if flt.memory_type else None,
            "session_id": flt.session_id,
            "pinned": flt.pinned,
            "tags": flt.tags,
            "include_archived": flt.include_archived,
            "include_candidates": flt.include_candidates,
            "after_created_at": after_created_at,
            "after_id": after_id,
            "limit": limit,
        },
    )
    return memories_of(rows)


def listed_as_of(
    store: Store,
    flt: MemoryFilter,
    *,
    after: tuple[float | None, str | None],
    at: float,
    limit: int,
    project_id: str,
) -> list[Memory]:
    """Up to ``limit`` memories written by ``at`` passing the conditions of ``flt``
    that do not change with time (tier and status are judged as they stood then,
    by the caller), newest first, after the cursor ``after``."""
    after_created_at, after_id = after
    rows = store.read(
        "list_memories_as_of",
        {
            "project_id": project_id,
            "memory_type": flt.memory_type.value if flt.memory_type else None,
            "session_id": flt.session_id,
            "pinned": flt.pinned,
            "tags": flt.tags,
            "after_created_at": after_created_at,
            "after_id": after_id,
            "as_of": at,
            "limit": limit,
        },
    )
    return memories_of(rows)


def same_text(store: Store, keys: Iterable[str], project_id: str) -> list[SameText]:
    """The live memories whose normalised text is one of ``keys``, oldest first."""
    rows = store.read("find_by_content_key", {"keys": sorted(set(keys)), "project_id": project_id})
    return records(SameText, rows)


def update(
    store: Store,
    memory_id: str,
    project_id: str,
    *,
    changes: Mapping[str, Any],
    reembed: bool,
    embedding: Sequence[float] | None,
) -> Memory | None:
    """The memory after ``changes`` (and, with ``reembed``, its new vector or
    none); ``None`` when there is no such memory."""
    rows = store.write(
        "update_memory",
        {
            "id": memory_id,
            "project_id": project_id,
            "changes": changes,
            "reembed": reembed,
            "embedding": embedding,
        },
    )
    return _one(rows)


def record_access(store: Store, memory_id: str, project_id: str, now: float) -> Memory | None:
    """The memory with one more use counted; ``None`` when there is no such memory."""
    rows = store.write("record_access", {"id": memory_id, "project_id": project_id, "now": now})
    return _one(rows)


def add_feedback(
    store: Store, memory_id: str, project_id: str, value: int, now: float
) -> Memory | None:
    """The memory with the feedback ``value`` added; ``None`` when there is no such memory."""
    rows = store.write(
        "add_feedback", {"id": memory_id, "project_id": project_id, "value": value, "now": now}
    )
    return _one(rows)


def set_importance(
    store: Store, memory: Memory, project_id: str, fields: Mapping[str, Any]
) -> None:
    """Store the importance ``fields`` scored for ``memory``, unless its counts
    changed meanwhile (the statement matches them)."""
    store.write(
        "set_importance",
        {
            "id": memory.id,
            "project_id": project_id,
            "access_count": memory.access_count,
            "feedback_count": memory.feedback_count,
            "fields": fields,
        },
    )


def set_pinned(
    store: Store, memory_id: str, project_id: str, pinned: bool, now: float
) -> Memory | None:
    """The memory pinned or unpinned; ``None`` when there is no such memory."""
    rows = store.write(
        "set_pinned", {"id": memory_id, "project_id": project_id, "pinned": pinned, "now": now}
    )
    return _one(rows)


def forget(store: Store, memory_id: str, project_id: str) -> bool:
    """Delete the memory and its edges; whether there was one to delete."""
    rows = store.write("forget_memory", {"id": memory_id, "project_id": project_id})
    return bool(first(rows, "deleted", 0))


@dataclass(frozen=True, slots=True)
class SessionLoad:
    """A session a batch wrote into: its own memory limit and its working memories."""

    session_id: str
    max_items: int | None
    working: int


@dataclass(frozen=True, slots=True)
class Remembered:
    """What ``remember_many`` did with a batch."""

    created: int
    raced: dict[str, str]
    """Rows counted into a memory another writer of the same text created after
    the batch looked: the row's id, and that memory's."""
    merged: list[Mapping[str, Any]]
    """The properties of the memories merged into, as they now stand (a memory
    merged into twice: its later fields last), vectors left out."""
    linked: int
    sessions: list[SessionLoad]


@dataclass(frozen=True, slots=True)
class Superseded:
    """A SUPERSEDES edge as written: ``new_id`` supersedes ``old_id``."""

    new_id: str
    old_id: str


def remember(
    store: Store,
    project_id: str,
    *,
    rows: Sequence[Mapping[str, Any]],
    vectors: Sequence[Sequence[float] | None],
    merges: Sequence[Mapping[str, Any]],
    links: Sequence[Mapping[str, Any]],
    dedup: bool,
    event_window: float,
    now: float,
) -> Remembered:
    """Create the memories of ``rows`` with their ``vectors`` and ``links``, and
    count ``merges`` into live memories, in one statement: a failure leaves the
    batch entirely unwritten."""
    (written,) = store.write(
        "remember_many",
        {
            "project_id": project_id,
            "session_ids": sorted({row["session_id"] for row in rows}),
            "rows": [
                {
                    "props": row,
                    "embedding": vector,
                    "event_id": new_id(),
                    "dedup": readable(row["content"]),
                }
                for row, vector in zip(rows, vectors, strict=True)
            ],
            "event_window": event_window,
            "merges": merges,
            "links": links,
            "dedup": dedup,
            "now": now,
        },
    )
    return Remembered(
        created=written["created"],
        raced={merge["row_id"]: merge["id"] for merge in written["raced"]},
        merged=written["merged"],
        linked=written["linked"],
        sessions=records(SessionLoad, written["sessions"]),
    )


def supersede(
    store: Store, edges: Sequence[Mapping[str, Any]], project_id: str, now: float
) -> list[Superseded]:
    """Write the SUPERSEDES ``edges`` (``new_id``, ``old_id`` and the relation's
    fields); those written."""
    rows = store.write(
        "supersede_many", {"supersedes": edges, "project_id": project_id, "now": now}
    )
    return records(Superseded, rows)
