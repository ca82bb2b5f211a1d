"""Reading and changing single memories: get, list, edit, use, rate, pin, forget.

Each operation is scoped to one project (resolved by GraphMem); an id from
another project behaves exactly like an id that does not exist.

A memory names others (``superseded_by``, ``merged_into``, ``conflicts_with``,
``copied_from``, the id in an archive reason such as "merged into <id>"); for a
call acting as an agent each such name is kept only when the agent may read
the memory it names (``readable_references``), so a shared memory never tells
another agent of a private one. The logs and exports that name memories use
the same rule (``unreadable``, ``without_ids``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from graphmem.domain.analysis import LENGTH_FIELD, text_length
from graphmem.domain.checks import (
    MAX_PAGE_SIZE,
    check_between,
    check_not_future,
    check_validity,
    parse,
)
from graphmem.domain.consolidation import ARCHIVE_PREFIX
from graphmem.domain.cursors import decode_cursor, encode_cursor
from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.errors import InvalidInputError, NotFoundError
from graphmem.domain.kinds import Status, Tier
from graphmem.domain.models import Memory, MemoryFilter, MemoryUpdate, Page, memory_from_fields
from graphmem.domain.text import content_key
from graphmem.domain.validity import check_as_of
from graphmem.domain.viewer import acting_agent
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.embeddings import Vector, memory_text
from graphmem.services.events import ChangeKind
from graphmem.services.history import History
from graphmem.services.staging import Signal, Stager
from graphmem.store import Store
from graphmem.store.queries import memories as stored

Embed = Callable[[Sequence[str]], list[Vector] | None]
"""Vectors for memories about to be written; ``None`` when embeddings are off."""


def missing(memory_id: str, project_id: str, *, field: str = "id") -> NotFoundError:
    return NotFoundError(f"{field}: no memory {memory_id!r} in project {project_id!r}", field=field)


REFERENCES = (
    "superseded_by",
    "merged_into",
    "conflicts_with",
    "copied_from",
    "valid_to_by",
    "review_cause",
    "review_by",
)
"""A memory's fields that hold another memory's id."""
REASONS = ("archive_reason",)
"""A memory's fields whose text may hold another memory's id ("merged into <id>")."""
NAMING = ("merged into ", ARCHIVE_PREFIX)
"""How the texts graphmem writes name a memory: the prefix, then the id."""
UNNAMED = "another memory"
"""What a text names instead of a memory its reader may not read."""
_CLEARED_WITH = {"conflicts_with": ("conflict_reason",), "copied_from": ("copied_from_project",)}
"""Fields that only describe a reference, cleared with it."""


def named_ids(
    fields: Mapping[str, Any], names: Iterable[str] = REFERENCES, texts: Iterable[str] = REASONS
) -> set[str]:
    """The memory ids ``fields`` name, in id fields and in texts."""
    found = {fields[name] for name in names if isinstance(fields.get(name), str)}
    for name in texts:
        text = fields.get(name)
        for prefix in NAMING:
            if isinstance(text, str) and text.startswith(prefix):
                found.add(text.removeprefix(prefix))
    return found


def unreadable(store: Store, ids: Collection[str]) -> set[str]:
    """Of ``ids``, those the acting agent may not read (another agent's private
    memories, and ids of no memory); nothing for a call acting as no agent."""
    if acting_agent() is None or not ids:
        return set()
    return set(ids) - stored.readable_ids(store, ids)


def without_ids(
    fields: Mapping[str, Any],
    hidden: Collection[str],
    names: Iterable[str] = REFERENCES,
    texts: Iterable[str] = REASONS,
) -> dict[str, Any]:
    """``fields`` with every id of ``hidden`` left out: an id field (and what only
    describes it) dropped, a text naming it saying "another memory" instead."""
    kept = dict(fields)
    for name in names:
        if kept.get(name) in hidden:
            for cleared in (name, *_CLEARED_WITH.get(name, ())):
                kept.pop(cleared, None)
    for name in texts:
        text = kept.get(name)
        for prefix in NAMING:
            if isinstance(text, str) and text.removeprefix(prefix) in hidden:
                kept[name] = prefix + UNNAMED
    return kept


def readable_references(store: Store, memories: Sequence[Memory]) -> list[Memory]:
    """``memories`` naming only the memories the acting agent may read, in one
    read for the lot (none for a call acting as no agent). Applied to what a
    read hands out, after any decision taken on the fields as stored."""
    if acting_agent() is None or not memories:
        return list(memories)
    fields = [m.model_dump() for m in memories]
    hidden = unreadable(store, set().union(*map(named_ids, fields)))
    if not hidden:
        return list(memories)
    return [
        memory_from_fields(without_ids(f, hidden)) if named_ids(f) & hidden else m
        for m, f in zip(memories, fields, strict=True)
    ]


class Memories(Service):
    """One memory at a time: reads, edits, uses, feedback, pins and deletion."""

    def __init__(
        self,
        basics: Basics,
        *,
        stager: Stager,
        embed: Embed,
    ) -> None:
        super().__init__(basics)
        self.stager = stager
        self.embed = embed
        self.history = History(self.store)
        self.cascade = Cascade(basics)

    def readable_references(self, memories: Sequence[Memory]) -> list[Memory]:
        """``memories`` naming only what the acting agent may read."""
        return readable_references(self.store, memories)

    def readable(self, memory: Memory) -> Memory:
        """One memory naming only what the acting agent may read."""
        (kept,) = self.readable_references([memory])
        return kept

    def get(self, memory_id: str, *, project_id: str) -> Memory:
        (memory,) = self.get_many([memory_id], project_id=project_id)
        if memory is None:
            raise missing(memory_id, project_id)
        return memory

    def get_many(
        self, memory_ids: Sequence[str], *, project_id: str, as_of: Any = None
    ) -> list[Memory | None]:
        """Memories in the order asked for, ``None`` where an id is unknown (DataLoader shape).

        With ``as_of``, each as it stood then (``None`` where not yet written):
        looked up by id, a memory is shown whether or not it held then."""
        if as_of is not None:
            at = check_as_of(as_of, self._now())
            then = self.history.get_many(memory_ids, at, project_id=project_id)
            found = {m.id: m for m in then if m is not None}
        else:
            found = {m.id: m for m in stored.get(self.store, memory_ids, project_id)}
        readable = {m.id: m for m in self.readable_references(list(found.values()))}
        return [readable.get(memory_id) for memory_id in memory_ids]

    def list(
        self,
        filter: MemoryFilter | Mapping[str, Any] | None,
        *,
        first: int,
        after: str | None,
        project_id: str,
        as_of: Any = None,
    ) -> Page:
        """A page of memories, newest first, continued with ``after=page.end_cursor``.

        With ``as_of``: the memories graphmem held then that held then, with
        the tier and status they had (graphmem.domain.validity)."""
        flt = parse(MemoryFilter, filter or {})
        check_between("first", first, 1, MAX_PAGE_SIZE)
        after_created_at, after_id = decode_cursor(after) if after else (None, None)
        if as_of is not None:
            at = check_as_of(as_of, self._now())
            return self._list_as_of(flt, first, after_created_at, after_id, at, project_id)
        found = stored.listed(
            self.store,
            flt,
            after=(after_created_at, after_id),
            limit=first + 1,
            project_id=project_id,
        )
        items = self.readable_references(found[:first])
        return Page(
            items=items,
            has_next=len(found) > first,
            start_cursor=encode_cursor(items[0]) if items else None,
            end_cursor=encode_cursor(items[-1]) if items else None,
        )

    def _list_as_of(
        self,
        flt: MemoryFilter,
        first: int,
        after_created_at: float | None,
        after_id: str | None,
        at: float,
        project_id: str,
    ) -> Page:
        """Pages of the memories that held at ``at``, read in batches until
        ``first + 1`` pass the tier and status they had then."""
        kept: list[Memory] = []
        batch = min(max(4 * (first + 1), 100), MAX_PAGE_SIZE * 5)
        while len(kept) <= first:
            found = stored.listed_as_of(
                self.store,
                flt,
                after=(after_created_at, after_id),
                at=at,
                limit=batch,
                project_id=project_id,
            )
            then = self.history.at(found, at, project_id=project_id)
            kept += [m for m in then if _listed(m, flt)]
            if len(found) < batch:
                break
            after_created_at, after_id = found[-1].created_at, found[-1].id
        items = self.readable_references(kept[:first])
        return Page(
            items=items,
            has_next=len(kept) > first,
            start_cursor=encode_cursor(items[0]) if items else None,
            end_cursor=encode_cursor(items[-1]) if items else None,
        )

    def update(
        self, memory_id: str, changes: MemoryUpdate | Mapping[str, Any], *, project_id: str
    ) -> Memory:
        update = parse(MemoryUpdate, changes)
        fields = update.model_dump(mode="json", exclude_none=True)
        if not fields:
            raise InvalidInputError("changes: name at least one field to change", field="changes")
        current = self.get(memory_id, project_id=project_id)
        now = self._now()
        _check_valid_change(update, current, now)
        merged = current.model_copy(update=fields)
        fields.update(self.scorer.stored_fields(merged, now))
        fields["updated_at"] = now
        if update.content is not None:
            fields["content_key"] = content_key(update.content)
        if update.valid_to is not None:  # an end given outright: no relation closed it
            fields["valid_to_by"] = None
        reembed = update.content is not None or update.rationale is not None
        if reembed:
            fields[LENGTH_FIELD] = text_length(merged.content, merged.rationale)
        vector = None
        if reembed:  # embedded before the write; with embeddings off the stale vector goes
            vectors = self.embed([memory_text(merged.content, merged.rationale)])
            vector = vectors[0] if vectors else None
        memory = stored.update(
            self.store,
            memory_id,
            project_id,
            changes=fields,
            reembed=reembed,
            embedding=vector,
        )
        if memory is None:
            raise missing(memory_id, project_id)
        self._changed(ChangeKind.UPDATED, [memory_id], project_id)
        # A person editing or re-categorising a candidate has confirmed it.
        return self.readable(self.activate(memory, Signal.EDIT, project_id=project_id))

    def activate(self, memory: Memory, signal: Signal, *, project_id: str) -> Memory:
        """A person's confirmation: a candidate becomes active (others are returned as is)."""
        if memory.status is not Status.CANDIDATE:
            return memory
        self.stager.activate([(memory.id, signal)], project_id=project_id)
        return self.get(memory.id, project_id=project_id)

    def record_access(self, memory_id: str, *, project_id: str) -> Memory:
        """Count one use of a memory and rescore it."""
        memory = stored.record_access(self.store, memory_id, project_id, self._now())
        if memory is None:
            raise missing(memory_id, project_id)
        return self.readable(self._rescore(memory, project_id))

    def feedback(self, memory_id: str, value: int, *, project_id: str) -> Memory:
        """Record +1 (useful), 0 (neutral) or -1 (wrong or unhelpful)."""
        if value not in (-1, 0, 1):
            raise InvalidInputError("value: feedback must be -1, 0 or 1", field="value")
        rated = stored.add_feedback(self.store, memory_id, project_id, value, self._now())
        if rated is None:
            raise missing(memory_id, project_id)
        memory = self._rescore(rated, project_id)
        self._changed(ChangeKind.FEEDBACK, [memory_id], project_id)
        if self.stager.activate_earned([memory], project_id=project_id):
            return self.get(memory_id, project_id=project_id)
        return self.readable(memory)

    def _rescore(self, memory: Memory, project_id: str) -> Memory:
        fields = self.scorer.stored_fields(memory, self._now())
        stored.set_importance(self.store, memory, project_id, fields)
        return memory.model_copy(update={"importance": fields["importance"]})

    def set_pinned(self, memory_id: str, pinned: bool, *, project_id: str) -> Memory:
        memory = stored.set_pinned(self.store, memory_id, project_id, pinned, self._now())
        if memory is None:
            raise missing(memory_id, project_id)
        kind = ChangeKind.PINNED if pinned else ChangeKind.UNPINNED
        self._changed(kind, [memory_id], project_id)
        kept = self.activate(memory, Signal.PIN, project_id=project_id) if pinned else memory
        return self.readable(kept)

    def forget(self, memory_id: str, *, project_id: str) -> None:
        """Delete a memory and its edges: the only path that deletes anything."""
        # The delete takes the edges with it: what rests on the memory is found first.
        marks = self.cascade.plan([Changed(memory_id, Change.FORGOTTEN)], project_id=project_id)
        if not stored.forget(self.store, memory_id, project_id):
            raise missing(memory_id, project_id)
        self._changed(ChangeKind.FORGOTTEN, [memory_id], project_id)
        self.cascade.apply(marks, project_id=project_id)


def _listed(memory: Memory, flt: MemoryFilter) -> bool:
    """``list_memories``' tier and status conditions, on a memory as it stood then."""
    return (
        (flt.tier is None or memory.tier is flt.tier)
        and (flt.include_archived or memory.tier is not Tier.ARCHIVED or flt.tier is Tier.ARCHIVED)
        and (flt.status is None or memory.status is flt.status)
        and (flt.include_candidates or memory.status is not Status.CANDIDATE)
    )


def _check_valid_change(update: MemoryUpdate, current: Memory, now: float) -> None:
    """A new start no later than a small clock skew past ``now``, and a validity
    that, with the changes, still ends no earlier than it begins."""
    if update.valid_from is not None:
        check_not_future(update.valid_from, now, field="valid_from")
    start = current.valid_since if update.valid_from is None else update.valid_from
    end = current.valid_to if update.valid_to is None else update.valid_to
    check_validity(start, end, field="valid_to" if update.valid_to is not None else "valid_from")
