"""Checks of the scheduled work not done: memories promotion or archival
should have moved by now."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphmem.domain.consistency import Finding
from graphmem.domain.kinds import Tier
from graphmem.domain.lifecycle import SHORT_TERM
from graphmem.services.evaluator.context import LIVE_TIERS, CheckContext, bad_unit, finding
from graphmem.services.evaluator.scores import scoring_window
from graphmem.services.evaluator.snapshot import Snapshot

_SHORT_TERM = frozenset(t.value for t in SHORT_TERM)


def check_overdue(snap: Snapshot, ctx: CheckContext) -> Iterator[Finding]:
    """Items a promotion or archival run would move, eligible for longer than a grace.

    Scores only decay between writes, so an item scoring at or above the
    promotion threshold now has scored so since its last write; an item that
    is stale and below the archival bar one grace period ago still is.
    """
    archive_grace = max(ctx.overdue_after_seconds, 2 * ctx.rules.archive_interval_seconds)
    for node, attrs in snap.graph.nodes(data=True):
        tier = attrs.get("tier") or Tier.WORKING.value
        if tier not in LIVE_TIERS or attrs.get("created_at") is None:
            continue
        if bad_unit(attrs.get("confidence")):
            continue
        promotion = _promotion_overdue(node, attrs, tier, snap, ctx)
        if promotion is not None:
            yield promotion
        archival = _archival_overdue(node, attrs, tier, ctx, archive_grace)
        if archival is not None:
            yield archival


def _promotion_overdue(
    node: str, attrs: Mapping[str, Any], tier: str, snap: Snapshot, ctx: CheckContext
) -> Finding | None:
    """A current short-term memory of an active session that promotes, scoring
    above the promotion threshold for longer than twice the session's interval."""
    if tier not in _SHORT_TERM or not attrs.get("memory_type"):
        return None
    if attrs.get("superseded_by") is not None:
        return None
    session = snap.sessions.get(attrs.get("in_session") or "")
    if session is None or session.state != "active" or not session.promotion_enabled:
        return None
    rules = ctx.rules
    interval = session.promotion_interval_seconds or rules.promotion_interval_seconds
    grace = max(ctx.overdue_after_seconds, 2 * interval)
    score = ctx.scores.at(node, attrs, ctx.now)
    if not (score >= rules.promote_threshold and scoring_window(attrs)[1] <= ctx.now - grace):
        return None
    return finding(
        "PROMOTION_OVERDUE",
        [node],
        f"memory {node} has scored {score:.3f} >= {rules.promote_threshold} "
        f"in {tier} for over {grace / 3600:g} h without being promoted",
        f"check that the scheduler runs (graphmem serve) or run graphmem promote {session.id}",
        details={"score": score, "session_id": session.id},
    )


def _archival_overdue(
    node: str, attrs: Mapping[str, Any], tier: str, ctx: CheckContext, archive_grace: float
) -> Finding | None:
    """An unpinned memory of a tier that goes stale, unused and below the
    archival bar since one grace period ago."""
    rules = ctx.rules
    stale = rules.stale_seconds(Tier(tier))
    if stale is None or attrs.get("pinned"):
        return None
    then = ctx.now - archive_grace
    last_used = attrs.get("last_accessed_at") or attrs.get("occurred_at") or attrs["created_at"]
    if not last_used < then - stale:
        return None
    score = ctx.scores.at(node, attrs, then)
    if not score < rules.archive_importance_below:
        return None
    return finding(
        "ARCHIVAL_OVERDUE",
        [node],
        f"memory {node} has been stale in {tier} and below importance "
        f"{rules.archive_importance_below} for over {archive_grace / 3600:g} h "
        "without being archived",
        "check that the scheduler runs (graphmem serve) or run graphmem archive",
        details={"score": score},
    )
