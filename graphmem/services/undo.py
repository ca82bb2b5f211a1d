"""Undo of curations: merges (a person's, or a write's exact or near merge),
supersedes, consolidations, archives, rejections and review marks.

Each undo is addressed by the memory the curation changed and its kind
(``graphmem.domain.undo``), checks first that nothing that came after it rests
on it (refused with what blocks it and what to do), then takes it back in one
write that reads its conditions again under the write locks, and logs an
``undone`` staging event with who and why. Taking a change back also takes
back the review marks it left (``Cascade.undone``).
"""

from __future__ import annotations

from collections.abc import Callable

from graphmem.domain.checks import check_text
from graphmem.domain.consolidation import ARCHIVE_PREFIX, ARCHIVE_REASON
from graphmem.domain.dependencies import Change
from graphmem.domain.errors import ConflictError, InvalidInputError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import RelationType, Source, Status, Tier
from graphmem.domain.models import Memory, MemoryInput
from graphmem.domain.undo import Blocked, Curation, UndoResult, curation_of
from graphmem.domain.viewer import acting_as
from graphmem.services.archival import Archiver
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.events import ChangeKind
from graphmem.services.memories import Memories
from graphmem.services.relations import MAX_REMOVED_BY_CHARS, Relations
from graphmem.services.review import MAX_REASON_CHARS, REJECTED
from graphmem.services.writer import Writer
from graphmem.store.queries import review
from graphmem.store.queries.review import MergeEvent

MERGED_PREFIX = "merged into "


def _blocked(blocked: Blocked, **names: str) -> ConflictError:
    return ConflictError(f"id: {blocked.say(**names)}", field="id")


def _given_back(survivor: Memory, event: MergeEvent) -> dict[str, float | int]:
    """The survivor's counts without what a person's merge added to them."""
    return {
        "occurrence_count": max(1, survivor.occurrence_count - (event.occurrences or 0)),
        "access_count": max(0, survivor.access_count - (event.accesses or 0)),
        "feedback": survivor.feedback - (event.feedback or 0.0),
        "feedback_count": max(0, survivor.feedback_count - (event.feedback_count or 0)),
    }


class Undo(Service):
    def __init__(
        self,
        basics: Basics,
        *,
        memories: Memories,
        archiver: Archiver,
        relations: Relations,
        writer: Writer,
    ) -> None:
        super().__init__(basics)
        self.memories = memories
        self.archiver = archiver
        self.relations = relations
        self.writer = writer
        self.cascade = Cascade(basics)
        self._undo: dict[Curation, Callable[[Memory, str, str, str], UndoResult]] = {
            Curation.MERGE: self._merge,
            Curation.SUPERSEDE: self._supersede,
            Curation.CONSOLIDATION: self._consolidation,
            Curation.ARCHIVE: self._archive,
            Curation.REJECTION: self._rejection,
            Curation.MARK: self._mark,
        }

    def undo(
        self, curation: Curation | str, memory_id: str, *, reason: str, by: str, project_id: str
    ) -> UndoResult:
        """Take back the ``curation`` of ``memory_id``; see the module docstring."""
        kind = curation_of(curation)
        reason = check_text("reason", (reason or "").strip(), max_chars=MAX_REASON_CHARS)
        if not reason:
            raise InvalidInputError("reason: say why it is undone", field="reason")
        by = check_text("by", (by or "").strip(), max_chars=MAX_REMOVED_BY_CHARS)
        if not by:
            raise InvalidInputError("by: say who undoes it", field="by")
        memory = self.memories.get(memory_id, project_id=project_id)
        # Reported as asked: a merge is undone on its survivor, named or not.
        result = self._undo[kind](memory, reason, by, project_id).model_copy(
            update={"memory_id": memory.id}
        )
        touched = [*result.restored, *result.created, *result.archived]
        review.log_undo(
            self.store,
            memory.id,
            project_id,
            event_id=new_id(),
            curation=kind.value,
            undone=", ".join(touched) or None,
            reason=reason,
            by=by,
            now=self._now(),
        )
        self._changed(ChangeKind.UPDATED, [memory.id, *touched], project_id)
        return result

    # -- merges ---------------------------------------------------------------

    def _merge(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """By the absorbed memory's id: the person's merge that folded it in; by
        any other: the newest merge into it not yet undone."""
        survivor_id = memory.merged_into or memory.id
        found = review.merge_to_undo(
            self.store, survivor_id, memory.id if memory.merged_into else None, project_id
        )
        if found is None:
            raise _blocked(Blocked.NOT_MERGED, id=survivor_id)
        event = found.event
        if event.occurrences is None:
            raise ConflictError(
                f"id: the merge into {survivor_id} was logged before merges kept what they "
                "added, so it cannot be taken back",
                field="id",
            )
        survivor = self.memories.get(survivor_id, project_id=project_id)
        if survivor.tier is Tier.ARCHIVED:
            raise ConflictError(f"id: {survivor_id} is archived; restore it first", field="id")
        if event.merged_from:
            return self._unmerge(survivor, event, event.merged_from, reason, project_id)
        return self._split(survivor, event, project_id)

    def _unmerge(
        self, survivor: Memory, event: MergeEvent, absorbed: str, reason: str, project_id: str
    ) -> UndoResult:
        """A person's merge: the absorbed memory comes back, the survivor gives it up."""
        now = self._now()
        after = survivor.model_copy(update=_given_back(survivor, event))
        undone = review.undo_merge(
            self.store,
            survivor.id,
            absorbed,
            project_id,
            event_id=event.id,
            importance_fields=self.scorer.stored_fields(after, now),
            reason=f"merge undone: {reason}",
            now=now,
        )
        if not undone:
            raise self._merge_blocked(survivor, event, project_id)
        return UndoResult(curation=Curation.MERGE, memory_id=survivor.id, restored=[absorbed])

    def _split(self, survivor: Memory, event: MergeEvent, project_id: str) -> UndoResult:
        """A write's merge: what it wrote becomes a memory of its own, with the
        occurrences, evidence and tags it brought (and its wording, for a near
        merge); its other fields are the survivor's, which it was counted into."""
        variants = event.added_variants or []
        part = MemoryInput(
            content=variants[0] if variants else survivor.content,
            memory_type=survivor.memory_type,
            confidence=survivor.confidence,
            source=survivor.source,
            tags=event.added_tags or [],
            evidence=event.added_evidence or [],
            session_id=survivor.session_id,
            agent_id=survivor.agent_id,
            visibility=survivor.visibility,
            occurred_at=survivor.occurred_at,
        )
        part_id = self.writer.write([part], project_id=project_id, dedup=False).outcomes[0].id
        undone = review.undo_write_merge(
            self.store, survivor.id, part_id, project_id, event_id=event.id, now=self._now()
        )
        if not undone:  # the part goes again: nothing is left half-undone
            self.memories.forget(part_id, project_id=project_id)
            raise self._merge_blocked(survivor, event, project_id)
        return UndoResult(curation=Curation.MERGE, memory_id=survivor.id, created=[part_id])

    def _merge_blocked(self, survivor: Memory, event: MergeEvent, project_id: str) -> ConflictError:
        """Why a merge's undo wrote nothing: edited since, undone meanwhile, or reset."""
        found = review.merge_to_undo(self.store, survivor.id, event.merged_from, project_id)
        if found is None or found.event.id != event.id:
            return _blocked(Blocked.NOT_MERGED, id=survivor.id)
        if not found.unedited:
            return _blocked(Blocked.EDITED, id=survivor.id)
        return _blocked(Blocked.COUNTS, id=survivor.id)

    # -- supersedes and consolidations ---------------------------------------

    def _supersede(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """The SUPERSEDES relation from its successor goes: it is current again."""
        successor_id = memory.superseded_by
        if successor_id is None:
            raise _blocked(Blocked.NOT_SUPERSEDED, id=memory.id)
        with acting_as(None):
            successor = self.memories.get(successor_id, project_id=project_id)
        if (
            successor.source is Source.CONSOLIDATED
            and memory.archive_reason == ARCHIVE_REASON.format(id=successor_id)
        ):
            raise ConflictError(
                f"id: {memory.id} was consolidated into {successor_id}; undo that consolidation",
                field="id",
            )
        if self._superseded_since(memory.id, successor, project_id):
            raise _blocked(
                Blocked.SUPERSEDED_AGAIN, id=successor_id, by=str(successor.superseded_by)
            )
        self.relations.unrelate(
            successor_id,
            memory.id,
            RelationType.SUPERSEDES,
            reason=f"supersede undone: {reason}",
            removed_by=by,
            project_id=project_id,
        )
        return UndoResult(curation=Curation.SUPERSEDE, memory_id=memory.id, restored=[memory.id])

    def _superseded_since(self, memory_id: str, successor: Memory, project_id: str) -> bool:
        """Whether ``successor`` was itself superseded after it superseded
        ``memory_id``: that later change rests on this one."""
        if successor.superseded_by is None:
            return False
        (edges,) = self.relations.of([successor.id], project_id=project_id)
        made = {
            (e.from_id, e.to_id): e.created_at for e in edges if e.type is RelationType.SUPERSEDES
        }
        mine = made.get((successor.id, memory_id))
        later = made.get((successor.superseded_by, successor.id))
        return mine is None or later is None or later > mine

    def _consolidation(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """Its sources come back as they were; the consolidated memory is archived."""
        if memory.source is not Source.CONSOLIDATED or memory.tier is Tier.ARCHIVED:
            raise _blocked(Blocked.NOT_CONSOLIDATED, id=memory.id)
        if memory.superseded_by is not None:
            raise _blocked(Blocked.SUPERSEDED_AGAIN, id=memory.id, by=memory.superseded_by)
        archive_reason = ARCHIVE_REASON.format(id=memory.id)
        sources = self._sources(memory, project_id)
        for source in sources:
            if source.tier is not Tier.ARCHIVED or source.archive_reason != archive_reason:
                what = "restored" if source.tier is not Tier.ARCHIVED else "archived again"
                raise _blocked(Blocked.CHANGED_SINCE, id=source.id, what=what)
        if not sources:
            raise _blocked(Blocked.NOT_CONSOLIDATED, id=memory.id)
        restored = review.undo_consolidation(
            self.store,
            memory.id,
            project_id,
            archive_reason=archive_reason,
            archived_reason=f"consolidation undone: {reason}",
            count=len(sources),
            by=by,
            reason=f"consolidation undone: {reason}",
            now=self._now(),
        )
        if restored is None:
            raise ConflictError(f"id: {memory.id} changed meanwhile; try again", field="id")
        self.cascade.undone(restored, [Change.SUPERSEDED], project_id=project_id)
        return UndoResult(
            curation=Curation.CONSOLIDATION,
            memory_id=memory.id,
            restored=restored,
            archived=[memory.id],
        )

    def _sources(self, memory: Memory, project_id: str) -> list[Memory]:
        """The memories ``memory`` supersedes, as the store's own walk reads them."""
        (edges,) = self.relations.of([memory.id], project_id=project_id)
        ids = [
            e.to_id for e in edges if e.type is RelationType.SUPERSEDES and e.from_id == memory.id
        ]
        with acting_as(None):
            found = self.memories.get_many(ids, project_id=project_id)
        return [m for m in found if m is not None and m.superseded_by == memory.id]

    # -- archives, rejections, marks -----------------------------------------

    def _archive(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """Back to the tier it was archived from; a merge's, a consolidation's or a
        rejection's archive is taken back by undoing that instead."""
        if memory.tier is not Tier.ARCHIVED:
            raise _blocked(Blocked.NOT_ARCHIVED, id=memory.id)
        said = memory.archive_reason or ""
        for prefix, curation in (
            (MERGED_PREFIX, Curation.MERGE),
            (ARCHIVE_PREFIX, Curation.CONSOLIDATION),
            (REJECTED, Curation.REJECTION),
        ):
            if said.startswith(prefix):
                raise ConflictError(
                    f"id: {memory.id} was archived by a {curation.value}; "
                    f"undo the {curation.value}",
                    field="id",
                )
        self.archiver.restore(memory.id, project_id=project_id, reason=f"archive undone: {reason}")
        return UndoResult(curation=Curation.ARCHIVE, memory_id=memory.id, restored=[memory.id])

    def _rejection(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """A candidate in the review queue again."""
        rejected = (
            memory.tier is Tier.ARCHIVED
            and memory.status is Status.CANDIDATE
            and (memory.archive_reason or "").startswith(REJECTED)
        )
        if not rejected:
            raise _blocked(Blocked.NOT_REJECTED, id=memory.id)
        self.archiver.restore(
            memory.id, project_id=project_id, reason=f"rejection undone: {reason}"
        )
        return UndoResult(curation=Curation.REJECTION, memory_id=memory.id, restored=[memory.id])

    def _mark(self, memory: Memory, reason: str, by: str, project_id: str) -> UndoResult:
        """The mark goes, logged as cleared with the reason."""
        if memory.review_change is None:
            raise _blocked(Blocked.NOT_MARKED, id=memory.id)
        self.cascade.clear([memory.id], [], "cleared", f"mark undone: {reason}", project_id)
        return UndoResult(curation=Curation.MARK, memory_id=memory.id)
