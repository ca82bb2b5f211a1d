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

from graphmem.domain.dependencies import Change, Changed, Mark, Walk
from graphmem.domain.viewer import acting_as
from graphmem.services.base import Basics, Service
from graphmem.services.events import ChangeKind
from graphmem.store.queries import cascade

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
                walk.step(cascade.dependents(self.store, walk.frontier, project_id, self._now()))
        return walk.marks

    def apply(self, marks: Sequence[Mark], *, project_id: str) -> list[str]:
        """Write ``marks``; returns the ids marked (announced to subscribers)."""
        if not marks:
            return []
        with acting_as(None):
            ids = cascade.mark(self.store, marks, project_id, self._now())
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
        expired = cascade.expired_unmarked(self.store, project_id, self._now(), EXPIRED_PER_SWEEP)
        return self.changed(
            [Changed(memory_id, Change.EXPIRED) for memory_id in expired], project_id=project_id
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
        cleared = cascade.clear(
            self.store,
            ids,
            causes,
            changes,
            kind=kind,
            reason=reason,
            project_id=project_id,
            now=self._now(),
        )
        self._changed(ChangeKind.CONFIRMED, cleared, project_id)
        return cleared
