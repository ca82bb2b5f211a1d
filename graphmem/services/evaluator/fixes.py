"""Safe fixes: the repairs the evaluator may apply by itself.

Only repairs that cannot lose information qualify: recomputing importance
(it is derived data), filling a missing ``archived_at`` from the memory's
last write, and archiving live orphans (archived memories stay restorable).
Every write is conditional on what the snapshot saw, so a memory changed
since then is skipped rather than overwritten; each fix is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.domain.consistency import Finding
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.evaluator.scores import score_inputs
from graphmem.services.evaluator.snapshot import Snapshot
from graphmem.store import Store
from graphmem.store.queries import evaluator as queries

log = logging.getLogger(__name__)

ORPHAN_REASON = "orphan: not in any session of its project (consistency evaluator)"


@dataclass(frozen=True, slots=True)
class FixAction:
    action: str
    """``recompute_importance``, ``fill_archived_at`` or ``archive_orphan``."""
    memory_id: str
    detail: str
    params: dict[str, Any]

    def to_dict(self) -> dict[str, str]:
        return {"action": self.action, "memory_id": self.memory_id, "detail": self.detail}


_ACTION = {
    "IMPORTANCE_STALE": "recompute_importance",
    "IMPORTANCE_OUT_OF_RANGE": "recompute_importance",
    "ARCHIVED_WITHOUT_TIMESTAMP": "fill_archived_at",
    "ORPHAN_MEMORY": "archive_orphan",
}


def plan(
    findings: Iterable[Finding], snap: Snapshot, scorer: ImportanceScorer, now: float
) -> list[FixAction]:
    """One action per fixable finding (a memory's importance is recomputed once)."""
    actions: dict[tuple[str, str], FixAction] = {}
    nodes = snap.graph.nodes
    for f in findings:
        action = _ACTION.get(f.code)
        if action is None or not f.fixable:
            continue
        (memory_id,) = f.memory_ids
        if (action, memory_id) in actions:
            continue
        attrs = nodes[memory_id]
        if action == "recompute_importance":
            fields = scorer.stored_fields(score_inputs(attrs), now)
            detail = f"importance {attrs.get('importance')!r} -> {fields['importance']:.4f}"
            params = {
                "id": memory_id,
                "access_count": attrs.get("access_count") or 0,
                "feedback_count": attrs.get("feedback_count") or 0,
                "fields": fields,
            }
        elif action == "fill_archived_at":
            when = attrs.get("updated_at") or attrs.get("created_at")
            detail = f"archived_at := its last write ({when})"
            params = {"id": memory_id}
        else:
            tier = attrs.get("tier") or "working"
            detail = f"archive from {tier}: {ORPHAN_REASON}"
            params = {"id": memory_id, "tier": tier}
        actions[(action, memory_id)] = FixAction(action, memory_id, detail, params)
    return sorted(actions.values(), key=lambda a: (a.action, a.memory_id))


def apply(store: Store, project_id: str, actions: Sequence[FixAction], now: float) -> list[str]:
    """Apply the planned actions; returns the ids of the memories actually changed."""
    applied: list[str] = []
    by_action: dict[str, list[FixAction]] = {}
    for action in actions:
        by_action.setdefault(action.action, []).append(action)
    if items := by_action.get("recompute_importance"):
        done = queries.fix_importance(store, project_id, [a.params for a in items], now)
        applied += _logged(done, items)
    if items := by_action.get("fill_archived_at"):
        done = queries.fill_archived_at(store, project_id, [a.memory_id for a in items], now)
        applied += _logged(done, items)
    if items := by_action.get("archive_orphan"):
        params = [a.params for a in items]
        done = queries.archive_orphans(store, project_id, params, ORPHAN_REASON, now)
        applied += _logged(done, items)
    return applied


def _logged(done: set[str], items: list[FixAction]) -> list[str]:
    """The ids of ``items`` the fix ``done``, each action logged as applied or
    skipped."""
    for item in items:
        if item.memory_id in done:
            log.info("evaluator fix %s %s: %s", item.action, item.memory_id, item.detail)
        else:
            log.info(
                "evaluator fix %s %s skipped: changed since the snapshot",
                item.action,
                item.memory_id,
            )
    return [item.memory_id for item in items if item.memory_id in done]
