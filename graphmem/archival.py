"""Adaptive archival: stale, low-importance memories leave the live tiers.

Archived memories are never deleted: they keep their content, edges and the
tier they came from, are hidden from listing and retrieval unless asked for,
and ``restore`` puts one back where it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmem.errors import NotFoundError
from graphmem.models import Memory, Tier, memory_from_fields
from graphmem.service import Service

ARCHIVABLE = (Tier.WORKING, Tier.EPISODIC, Tier.SEMANTIC, Tier.PROCEDURAL)


@dataclass(frozen=True)
class ArchiveItem:
    memory_id: str
    tier: Tier
    score: float
    reason: str


@dataclass
class ArchiveResult:
    project_id: str
    dry_run: bool
    items: list[ArchiveItem] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)


class Archiver(Service):
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
            rows = self.store.read(
                "archive_candidates",
                {
                    "project_id": project_id,
                    "tier": tier.value,
                    "stale_before": now - stale,
                    "below": below,
                    "limit": limit,
                    "now": now,
                    **self.scorer.query_params(),
                },
            )
            days = stale / 86_400
            result.items += [
                ArchiveItem(
                    memory_id=row["id"],
                    tier=tier,
                    score=row["score"],
                    reason=f"stale: unused for over {days:g} days in {tier.value}, "
                    f"importance {row['score']:.3f} < {below}",
                )
                for row in rows
            ]
        if not dry_run and result.items:
            rows = self.store.write(
                "archive_memories",
                {
                    "project_id": project_id,
                    "items": [
                        {
                            "id": i.memory_id,
                            "tier": i.tier.value,
                            "score": i.score,
                            "reason": i.reason,
                        }
                        for i in result.items
                    ],
                    "now": now,
                },
            )
            result.archived = [row["id"] for row in rows]
        self.telemetry.emit(
            "archival.completed",
            now,
            project_id=project_id,
            dry_run=dry_run,
            candidates=len(result.items),
            archived=len(result.archived),
        )
        return result

    def restore(self, memory_id: str, *, project_id: str) -> Memory:
        """Bring an archived memory back to the tier it was archived from, counted
        as just used: the move and the new score are one write."""
        missing = NotFoundError(
            f"id: no archived memory {memory_id!r} in project {project_id!r}", field="id"
        )
        found = self.store.read("get_memories", {"ids": [memory_id], "project_id": project_id})
        if not found:
            raise missing
        memory = memory_from_fields(found[0]["memory"])
        now = self._now()
        restored = memory.model_copy(
            update={"tier": memory.archived_from or Tier.WORKING, "last_accessed_at": now}
        )
        rows = self.store.write(
            "restore_memory",
            {
                "id": memory_id,
                "project_id": project_id,
                "importance_fields": self.scorer.stored_fields(restored, now),
                "access_count": memory.access_count,
                "feedback_count": memory.feedback_count,
                "now": now,
            },
        )
        if not rows:
            raise missing
        return memory_from_fields(rows[0]["memory"])
