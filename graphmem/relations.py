"""Typed edges between memories of one project: relate, supersede, list.

Both ends are checked before the write (a missing end names its field, and a
SUPERSEDES edge that would close a cycle is refused), and each type has its
own statement: Cypher cannot take a relationship type as a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.events import ChangeKind
from graphmem.memories import missing
from graphmem.models import MAX_RATIONALE_CHARS, Relation, RelationType, check_text
from graphmem.service import Service


class Relations(Service):
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
        try:
            relation_type = RelationType(type)
        except ValueError:
            allowed = ", ".join(t.value for t in RelationType)
            raise InvalidInputError(f"type: must be one of {allowed}", field="type") from None
        if from_id == to_id:
            raise InvalidInputError("to_id: a memory cannot relate to itself", field="to_id")
        if not isinstance(weight, int | float) or not 0.0 <= weight <= 1.0:
            raise InvalidInputError("weight: must be between 0 and 1", field="weight")
        if rationale is not None:
            rationale = check_text("rationale", rationale, max_chars=MAX_RATIONALE_CHARS)
        project = project_id
        check = self.store.read(
            "memory_pair", {"from_id": from_id, "to_id": to_id, "project_id": project}
        )[0]
        if not check["from_exists"]:
            raise missing(from_id, project, field="from_id")
        if not check["to_exists"]:
            raise missing(to_id, project, field="to_id")
        if relation_type is RelationType.SUPERSEDES and check["to_supersedes_from"]:
            raise ConflictError(
                f"to_id: {to_id} already supersedes {from_id}; the edge would close a cycle",
                field="to_id",
            )
        rows = self.store.write(
            relation_type.statement,
            {
                "from_id": from_id,
                "to_id": to_id,
                "project_id": project,
                "rationale": rationale,
                "weight": weight,
                "now": self._now(),
            },
        )
        if not rows:  # deleted between the check and the write
            raise missing(from_id, project, field="from_id")
        self._changed(ChangeKind.RELATED, [from_id, to_id], project)
        return Relation(type=relation_type, **rows[0])

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

    def of(self, memory_ids: Sequence[str], *, project_id: str) -> list[list[Relation]]:
        """Edges touching each memory, grouped per id in the order asked for."""
        rows = self.store.read("relations_of", {"ids": list(memory_ids), "project_id": project_id})
        grouped: dict[str, list[Relation]] = {memory_id: [] for memory_id in memory_ids}
        for row in rows:
            memory_id = row.pop("memory_id")
            grouped[memory_id].append(Relation(**row))
        return [grouped[memory_id] for memory_id in memory_ids]
