"""Adaptive archival: stale, low-importance memories leave the live tiers.

Archived memories keep their content, edges and the tier they came from, are
hidden from listing and retrieval unless asked for, and ``restore`` puts one
back where it was. They are deleted only with ``archive_expiry`` switched on
(it is off by default): after its days in the archive a memory is written to a
JSONL export first, then deleted, and each deletion is logged as an event.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from graphmem.domain.checks import check_text
from graphmem.domain.dependencies import Change, Changed
from graphmem.domain.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.domain.kinds import Tier
from graphmem.domain.models import Memory
from graphmem.domain.results import ArchiveItem, ArchiveResult
from graphmem.domain.retention import DAY
from graphmem.services.base import Basics, Service
from graphmem.services.cascade import Cascade
from graphmem.services.events import ChangeKind
from graphmem.services.memories import readable_references
from graphmem.store.queries import lifecycle, memories

MAX_REASON_CHARS = 500
ARCHIVABLE = (Tier.WORKING, Tier.EPISODIC, Tier.SEMANTIC, Tier.PROCEDURAL)


@dataclass
class ExpiryResult:
    project_id: str
    dry_run: bool
    expired: list[str] = field(default_factory=list)
    """Archived memories past ``archive_expiry.after_days``."""
    purged: list[str] = field(default_factory=list)
    export_file: str | None = None


class Archiver(Service):
    def __init__(self, basics: Basics) -> None:
        super().__init__(basics)
        self.cascade = Cascade(basics)

    def _mark_dependents(self, archived: Sequence[str], project_id: str) -> None:
        self.cascade.changed(
            [Changed(memory_id, Change.ARCHIVED) for memory_id in archived], project_id=project_id
        )

    def archive(self, memory_id: str, reason: str, *, project_id: str) -> Memory:
        """Archive one memory by hand (a reviewer's verdict on a marked one, say),
        with the reason; ``restore`` brings it back. A pinned memory is unpinned first."""
        reason = check_text("reason", (reason or "").strip(), max_chars=MAX_REASON_CHARS)
        if not reason:
            raise InvalidInputError("reason: say why it is archived", field="reason")
        memory = memories.get_one(self.store, memory_id, project_id)
        if memory is None:
            raise NotFoundError(
                f"id: no memory {memory_id!r} in project {project_id!r}", field="id"
            )
        if memory.tier is Tier.ARCHIVED:
            raise ConflictError(f"id: memory {memory_id!r} is already archived", field="id")
        if memory.pinned:
            raise ConflictError(
                f"id: memory {memory_id!r} is pinned; unpin it before archiving it", field="id"
            )
        item = ArchiveItem(memory_id, memory.tier, memory.importance, f"archived by hand: {reason}")
        if not lifecycle.archive(self.store, [item], project_id, self._now()):
            raise ConflictError(
                f"id: memory {memory_id!r} changed meanwhile; try again", field="id"
            )
        self._changed(ChangeKind.UPDATED, [memory_id], project_id)
        self._mark_dependents([memory_id], project_id)
        (archived,) = readable_references(
            self.store, memories.get(self.store, [memory_id], project_id)
        )
        return archived

    def archive_stale(
        self, *, project_id: str, dry_run: bool = False, limit: int = 10_000
    ) -> ArchiveResult:
        """Archive memories unused for longer than their tier allows and scoring low."""
        now = self._now()
        result = ArchiveResult(project_id=project_id, dry_run=dry_run)
        below = self.rules.archive_importance_below
        for tier in ARCHIVABLE:
            stale = self.rules.stale_seconds(tier)
            if stale is None:
                continue
            found = lifecycle.stale(
                self.store,
                tier,
                project_id,
                stale_before=now - stale,
                below=below,
                limit=limit,
                now=now,
                scoring=self.scorer.query_params(),
            )
            days = stale / 86_400
            result.items += [
                ArchiveItem(
                    memory_id=m.id,
                    tier=tier,
                    score=m.score,
                    reason=f"stale: unused for over {days:g} days in {tier.value}, "
                    f"importance {m.score:.3f} < {below}",
                )
                for m in found
            ]
        if not dry_run and result.items:
            result.archived = lifecycle.archive(self.store, result.items, project_id, now)
            self._mark_dependents(result.archived, project_id)
        self.telemetry.emit(
            "archival.completed",
            now,
            project_id=project_id,
            dry_run=dry_run,
            candidates=len(result.items),
            archived=len(result.archived),
        )
        return result

    def restore(self, memory_id: str, *, project_id: str, reason: str | None = None) -> Memory:
        """Bring an archived memory back to the tier it was archived from, counted
        as just used: the move and the new score are one write. ``reason`` is
        logged with the move (an undo says why)."""
        missing = NotFoundError(
            f"id: no archived memory {memory_id!r} in project {project_id!r}", field="id"
        )
        memory = memories.get_one(self.store, memory_id, project_id)
        if memory is None:
            raise missing
        now = self._now()
        restored = memory.model_copy(
            update={"tier": memory.archived_from or Tier.WORKING, "last_accessed_at": now}
        )
        back = lifecycle.restore(
            self.store,
            memory,
            project_id,
            importance_fields=self.scorer.stored_fields(restored, now),
            reason=reason,
            now=now,
        )
        if back is None:
            raise missing
        # A restore keeps what the memory names (mergedInto among them): the
        # answer names only what the acting agent may read.
        self.cascade.undone([memory_id], [Change.ARCHIVED, Change.REJECTED], project_id=project_id)
        (restored,) = readable_references(self.store, [back])
        return restored

    def expire_archived(
        self, *, project_id: str, dry_run: bool = False, limit: int = 10_000
    ) -> ExpiryResult:
        """Export, then delete, memories archived longer than ``archive_expiry`` allows.

        Does nothing unless ``archive_expiry.enabled``. Each memory (with its
        relations) is appended to ``<export_dir>/<project>-<date>.jsonl`` and
        the file is synced before anything is deleted, so a failed export
        deletes nothing; each deletion leaves a ``PurgeEvent`` naming the file.
        """
        expiry = self.rules.archive_expiry
        result = ExpiryResult(project_id=project_id, dry_run=dry_run)
        if not expiry.enabled:
            return result
        now = self._now()
        expired_before = now - expiry.after_days * DAY
        found = lifecycle.expired(
            self.store, project_id, expired_before=expired_before, limit=limit
        )
        result.expired = [e.id for e in found]
        if dry_run or not found:
            return result
        day = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
        path = Path(expiry.export_dir) / f"{project_id}-{day}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as export:
            for e in found:
                line = {"memory": e.memory, "relations": e.relations, "purged_at": now}
                export.write(json.dumps(line, sort_keys=True) + "\n")
            export.flush()
            os.fsync(export.fileno())
        result.export_file = str(path)
        result.purged = lifecycle.purge(
            self.store,
            result.expired,
            project_id,
            expired_before=expired_before,
            export_file=result.export_file,
            reason=f"archive expiry: archived over {expiry.after_days:g} days",
            now=now,
        )
        for memory_id in result.purged:
            self.telemetry.emit(
                "archive.purged",
                now,
                memory_id=memory_id,
                project_id=project_id,
                export_file=result.export_file,
            )
        return result
