"""Typed edges between memories of one project: relate, supersede, unrelate, list.

Both ends are checked before the write (a missing end names its field, and a
SUPERSEDES edge that would close a cycle is refused), and each type has its
own statement: Cypher cannot take a relationship type as a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.domain.checks import (
    MAX_PAGE_SIZE,
    MAX_RATIONALE_CHARS,
    check_between,
    check_text,
    choice,
)
from graphmem.domain.dependencies import Change
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.ids import new_id
from graphmem.domain.kinds import RelationType
from graphmem.domain.relations import Relation, RelationEvent
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.events import ChangeKind
from graphmem.services.memories import missing
from graphmem.store.queries import relations


class Relations(Service):
    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self.cascade = Cascade(basics)

    def relate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        rationale: str | None,
        weight: float,
        project_id: str,
    ) -> Relation:
        """Add (or update) a typed edge between two memories of one project."""
        relation_type = _relation_type(type)
        # An id no store can hold (a NUL, a lone surrogate) is refused as such,
        # not looked up: whether a database could even be asked differs.
        from_id = check_text("from_id", from_id, max_chars=MAX_ID_CHARS)
        to_id = check_text("to_id", to_id, max_chars=MAX_ID_CHARS)
        if from_id == to_id:
            raise InvalidInputError("to_id: a memory cannot relate to itself", field="to_id")
        if not isinstance(weight, int | float) or not 0.0 <= weight <= 1.0:
            raise InvalidInputError("weight: must be between 0 and 1", field="weight")
        if rationale is not None:
            rationale = check_text("rationale", rationale, max_chars=MAX_RATIONALE_CHARS)
        project = project_id
        check = relations.pair(self.store, from_id, to_id, project)
        if not check.from_exists:
            raise missing(from_id, project, field="from_id")
        if not check.to_exists:
            raise missing(to_id, project, field="to_id")
        if relation_type is RelationType.SUPERSEDES and check.to_supersedes_from:
            raise ConflictError(
                f"to_id: {to_id} already supersedes {from_id}; the edge would close a cycle",
                field="to_id",
            )
        relation = relations.relate(
            self.store,
            relation_type,
            from_id,
            to_id,
            rationale=rationale,
            weight=weight,
            project_id=project,
            now=self._now(),
        )
        if relation is None:  # deleted between the check and the write
            raise missing(from_id, project, field="from_id")
        self._changed(ChangeKind.RELATED, [from_id, to_id], project)
        if relation_type is RelationType.SUPERSEDES:
            self.cascade.superseded([(to_id, from_id)], project_id=project)
        return relation

    def supersede(
        self, old_id: str, new_id: str, *, rationale: str | None, project_id: str
    ) -> Relation:
        """Mark ``new_id`` as replacing ``old_id``; the old memory is kept, not deleted."""
        try:
            return self.relate(
                new_id,
                old_id,
                RelationType.SUPERSEDES,
                rationale=rationale,
                weight=1.0,
                project_id=project_id,
            )
        except (InvalidInputError, NotFoundError, ConflictError) as exc:
            renamed = {"from_id": "new_id", "to_id": "old_id"}
            field = renamed.get(exc.field or "", exc.field)
            message = exc.message
            if exc.field in renamed:
                message = message.replace(f"{exc.field}:", f"{field}:", 1)
            raise type(exc)(message, field=field) from None

    def unrelate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        reason: str,
        removed_by: str,
        project_id: str,
    ) -> Relation:
        """Remove one edge, logged with who removed it and why; returns it as it was.

        A wrong relation is taken back this way (the evaluator's advice for a
        bad edge); removing a SUPERSEDES edge restores the older memory, unless
        another still supersedes it. No such edge: ``NotFoundError`` and nothing
        is written.
        """
        relation_type = _relation_type(type)
        reason = check_text("reason", (reason or "").strip(), max_chars=MAX_REASON_CHARS)
        if not reason:
            raise InvalidInputError("reason: say why the relation is removed", field="reason")
        removed_by = check_text(
            "removed_by", (removed_by or "").strip(), max_chars=MAX_REMOVED_BY_CHARS
        )
        if not removed_by:
            raise InvalidInputError("removed_by: say who removes it", field="removed_by")
        relation = relations.unrelate(
            self.store,
            relation_type,
            from_id,
            to_id,
            event_id=new_id(),
            removed_by=removed_by,
            reason=reason,
            project_id=project_id,
            now=self._now(),
        )
        if relation is None:
            raise NotFoundError(
                f"relation: no {relation_type.value} relation from {from_id!r} to {to_id!r} "
                f"in project {project_id!r}",
                field="relation",
            )
        self._changed(ChangeKind.RELATED, [from_id, to_id], project_id)
        if relation_type is RelationType.SUPERSEDES:
            self.cascade.undone([to_id], [Change.SUPERSEDED], project_id=project_id)
        return relation

    def events(self, memory_id: str, *, limit: int, project_id: str) -> list[RelationEvent]:
        """Relations removed from or to a memory, newest first."""
        check_between("limit", limit, 1, MAX_PAGE_SIZE)
        return relations.events(self.store, memory_id, project_id, limit)

    def of(self, memory_ids: Sequence[str], *, project_id: str) -> list[list[Relation]]:
        """Edges touching each memory, grouped per id in the order asked for."""
        return relations.of(self.store, memory_ids, project_id)


MAX_REASON_CHARS = 500
"""Why a relation was removed: the same limit as a rejection's reason."""
MAX_ID_CHARS = 256
"""The longest id a memory can have (an import takes ids up to this long)."""
MAX_REMOVED_BY_CHARS = 200


def _relation_type(value: RelationType | str) -> RelationType:
    return choice(RelationType, value, "type")
