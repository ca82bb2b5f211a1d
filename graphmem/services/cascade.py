"""Changes reach what rests on them: the review marks a change leaves, and
their removal (``graphmem.domain.dependencies`` says which relations carry a
dependency and what a mark is).

Every path that makes a memory stop being current calls ``changed`` once
for what it changed: supersede (by a write, ``supersede`` or consolidation),
forget (before the delete, which takes the edges with it), archive, reject,
a write flagged as contradicting, and the sweep of memories whose validTo
passed. The walk is bounded by the depth setting and meets each memory once.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.domain.dependencies import Change, Changed, Edge, Mark, Walk
from graphmem.domain.kinds import RelationType
from graphmem.domain.viewer import acting_as
from graphmem.services.base import Basics, Service
from graphmem.services.events import ChangeKind

EXPIRED_PER_SWEEP = 1_000
"""Expired memories one sweep tells their dependents about; the next takes the rest."""


class Cascade(Service):
    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self.depth = basics.rules.cascade_depth

    def plan(self, changed: Sequence[Changed], *, project_id: str) -> list[Mark]:
        """The marks ``changed`` leaves, read before the change where it deletes edges."""
        walk = Walk(changed)
        # The walk is the store's own: another agent's memory that rests on this
        # one needs review as much (what a reader may see of the cause is
        # decided when the mark is read).
        with acting_as(None):
            for _ in range(self.depth):
                if not walk.frontier:
                    break
                rows = self.store.read(
                    "dependents",
                    {"ids": walk.frontier, "project_id": project_id, "now": self._now()},
                )
                walk.step(
                    Edge(r["from_id"], RelationType(r["type"]), r["id"], r["current"]) for r in rows
                )
        return walk.marks

    def apply(self, marks: Sequence[Mark], *, project_id: str) -> list[str]:
        """Write ``marks``; returns the ids marked (announced to subscribers)."""
        if not marks:
            return []
        with acting_as(None):
            rows = self.store.write(
                "mark_for_review",
                {
                    "marks": [
                        {
                            "id": m.memory_id,
                            "change": m.cause.change.value,
                            "cause": m.cause.memory_id,
                            "by": m.cause.by_id,
                            "path": [r.value for r in m.path],
                        }
                        for m in marks
                    ],
                    "project_id": project_id,
                    "now": self._now(),
                },
            )
        ids = [row["id"] for row in rows]
        self._changed(ChangeKind.MARKED, ids, project_id)
        return ids

    def changed(self, changed: Sequence[Changed], *, project_id: str) -> list[str]:
        """Mark what rests on ``changed``; returns the ids marked."""
        if not changed or self.depth == 0:
            return []
        return self.apply(self.plan(changed, project_id=project_id), project_id=project_id)

    def superseded(self, pairs: Sequence[tuple[str, str]], *, project_id: str) -> list[str]:
        """``pairs`` of (old, new): each old memory was superseded by its new one."""
        return self.changed(
            [Changed(old, Change.SUPERSEDED, new) for old, new in pairs], project_id=project_id
        )

    def undone(
        self, cause_ids: Sequence[str], changes: Sequence[Change], *, project_id: str
    ) -> list[str]:
        """``changes`` to ``cause_ids`` were undone (a restore, a SUPERSEDES edge
        removed): the marks they left go."""
        return self.clear(
            [], cause_ids, "cleared", "the change was undone", project_id, changes=changes
        )

    def expired(self, *, project_id: str) -> list[str]:
        """Mark what rests on memories whose validTo has passed since the last sweep."""
        rows = self.store.write(
            "expired_unmarked",
            {"project_id": project_id, "now": self._now(), "limit": EXPIRED_PER_SWEEP},
        )
        return self.changed(
            [Changed(row["id"], Change.EXPIRED) for row in rows], project_id=project_id
        )

    def clear(
        self,
        ids: Sequence[str],
        causes: Sequence[str],
        kind: str,
        reason: str | None,
        project_id: str,
        *,
        changes: Sequence[Change] = (),
    ) -> list[str]:
        """Take the marks of ``ids``, or those changes to ``causes`` left, logged as ``kind``."""
        rows = self.store.write(
            "clear_review_marks",
            {
                "ids": list(ids),
                "causes": list(causes),
                "changes": [c.value for c in changes],
                "kind": kind,
                "reason": reason,
                "project_id": project_id,
                "now": self._now(),
            },
        )
        cleared = [row["id"] for row in rows]
        self._changed(ChangeKind.CONFIRMED, cleared, project_id)
        return cleared
